/*
 * For cmocka tests that need the replay web: a real `sitescout replay` of the bundled
 * demo web, started on a free port (needs SITESCOUT_BIN and SITESCOUT_SRC).
 */
#ifndef SITESCOUT_TESTS_TESTREPLAY_H
#define SITESCOUT_TESTS_TESTREPLAY_H

#include <sys/types.h>

struct testreplay {
    pid_t pid;
    char proxy[128]; /* "http://127.0.0.1:PORT", for fetch_config.proxy */
};

/*
 * Start it with the extra options in args (NULL-terminated, may be NULL), e.g.
 * {"--latency-ms", "20", NULL}. 0 on success, with *out set.
 */
int testreplay_start(const char *const *args, struct testreplay **out);

/* Stop it (SIGTERM: the access log is flushed) and free. NULL is fine. */
void testreplay_stop(struct testreplay *r);

/*
 * cmocka group setup and teardown: one replay (no extra options) for a whole group,
 * its struct testreplay in *state.
 */
int testreplay_group_setup(void **state);
int testreplay_group_teardown(void **state);

#endif
