/* For cmocka tests that run the demo web's job: its body with the test's own parameters. */
#ifndef SITESCOUT_TESTS_TESTDEMO_H
#define SITESCOUT_TESTS_TESTDEMO_H

#include <jansson.h>

struct jobspec;

/*
 * The demo's sci.space job (demo/demo.jobs.json under $SITESCOUT_SRC) with params as its
 * parameters (stolen: json_pack's result goes straight in), parsed; a failed check fails
 * the test. The caller frees it (jobspec_free).
 */
struct jobspec *testdemo_job(json_t *params);

#endif
