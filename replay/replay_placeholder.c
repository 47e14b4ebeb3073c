/* Keeps the replay library non-empty until its first module lands. */
int replay_placeholder;
