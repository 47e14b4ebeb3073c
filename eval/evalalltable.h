/*
 * The table `sitescout eval --all-topics` prints on stdout: one row per topic (website
 * precision, recall, F1, pages per website, homepage F1, F improvement; tuned topics
 * marked, failed ones with their error), then the mean and worst website F1 over all
 * the topics and over the untuned ones.
 */
#ifndef SITESCOUT_EVAL_EVALALLTABLE_H
#define SITESCOUT_EVAL_EVALALLTABLE_H

#include "eval/evalall.h"

/* `source` names the jobs file in the heading. */
void evalalltable_print(const struct evalall *a, const char *source);

/* The progress line of one finished topic on stderr ("[3/32] sci.space: ..."). */
void evalalltable_progress(const struct evalall_topic *t, size_t i, size_t n);

#endif
