/* Keeps the crawler library non-empty until its first module lands. */
int crawler_placeholder;
