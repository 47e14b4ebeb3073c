/* Keeps the classifier library non-empty until its first module lands. */
int classifier_placeholder;
