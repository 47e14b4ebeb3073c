/* The demo web's job for cmocka tests (testdemo.h). */
#include "testdemo.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/jobspec.h"

/* jansson: json_load_file gives a new reference (freed with json_decref); json_object_get
 * borrows; json_object_set_new steals the value. */
struct jobspec *testdemo_job(json_t *params)
{
    char path[1024];
    const char *src = getenv("SITESCOUT_SRC");
    assert_non_null(src);
    snprintf(path, sizeof path, "%s/demo/demo.jobs.json", src);
    json_error_t jerr;
    json_t *all = json_load_file(path, 0, &jerr);
    if (!all)
        fail_msg("%s: %s", path, jerr.text);
    json_t *job = json_object_get(all, "sci.space");
    assert_non_null(job);
    json_object_set_new(job, "params", params);
    char *text = json_dumps(job, 0);
    json_decref(all);
    assert_non_null(text);
    struct jobspec *js = NULL;
    if (jobspec_parse(text, strlen(text), &js) != ERR_OK)
        fail_msg("the demo job: %s", err_msg());
    free(text);
    return js;
}
