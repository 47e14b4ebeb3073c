/*
 * The jobs of `sitescout eval --job ARG`: ARG is a job body or a jobs file keyed by
 * topic, given as a path or as the JSON text itself (when it starts with '{'). One
 * topic's job with the --set overrides applied, and the list of the topics ARG holds.
 *
 * Ownership: evaljob_load hands out a struct jobspec the caller frees with jobspec_free;
 * evaljob_topics hands out an array of strings the caller frees with evaljob_topics_free.
 * ARG and the overrides are borrowed for the call.
 */
#ifndef SITESCOUT_EVAL_EVALJOB_H
#define SITESCOUT_EVAL_EVALJOB_H

#include <stddef.h>

#include "common/err.h"
#include "job/jobspec.h"

/*
 * The job of `topic` (NULL: the only one) with each "KEY=VALUE" of sets applied, its
 * judge the examination (the paper's verdicts) unless sets says otherwise. A bad
 * override sets *bad_set (a usage error, err_msg says why); any other failure leaves
 * it 0.
 */
enum err evaljob_load(const char *arg, const char *topic, const char *const *sets, size_t n_sets,
                      struct jobspec **out, int *bad_set) WARN_UNUSED;

/*
 * The topics of ARG in its order: a jobs file's keys, or a single body's topic.
 * ERR_PARSE / ERR_INVAL when ARG is neither, ERR_TOOBIG over JOBSPEC_MAX_BODY bytes.
 */
enum err evaljob_topics(const char *arg, char ***topics, size_t *n) WARN_UNUSED;

void evaljob_topics_free(char **topics, size_t n);

#endif
