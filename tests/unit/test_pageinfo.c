/* crawler/pageinfo: links split by website, and the anchors kept only when asked for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "crawler/fetch.h"
#include "crawler/pageinfo.h"

static const char page[] = "<html><head><title>Space news</title></head><body>"
                           "<a href=\"/launch.html\">Next <b>launch</b></a>"
                           "<a href=\"http://www.nasa.example/\">NASA</a>"
                           "<a href=\"/launch.html\">rocket schedule</a>"
                           "<a href=\"http://www.site.example/\">this page</a>"
                           "<a href=\"/about.html\"><img src=x.png alt=\"About us\"></a>"
                           "<a href=\"http://www.nasa.example/\"></a>"
                           "</body></html>";

static struct fetch_result result(void)
{
    return (struct fetch_result){.url = "http://www.site.example/",
                                 .final_url = "http://www.site.example/",
                                 .status = FETCH_OK,
                                 .content_type = "text/html",
                                 .body = (char *)page,
                                 .body_len = sizeof page - 1};
}

static void anchors_kept_when_asked(void **state)
{
    (void)state;
    struct fetch_result r = result();
    struct pageinfo *p;
    assert_int_equal(pageinfo_from_fetch_anchors(&r, &p), ERR_OK);
    assert_int_equal(p->n_intrinsic, 2); /* launch, about; the page itself left out */
    assert_string_equal(p->intrinsic[0], "http://www.site.example/launch.html");
    assert_string_equal(p->intrinsic_anchor[0], "Next launch rocket schedule"); /* joined */
    assert_string_equal(p->intrinsic[1], "http://www.site.example/about.html");
    assert_string_equal(p->intrinsic_anchor[1], "About us"); /* an image's alt */
    assert_int_equal(p->n_transversal, 1);
    assert_string_equal(p->transversal[0], "http://www.nasa.example/");
    assert_string_equal(p->transversal_anchor[0], "NASA"); /* the empty second one adds nothing */
    pageinfo_free(p);
}

static void no_anchors_by_default(void **state)
{
    (void)state;
    struct fetch_result r = result();
    struct pageinfo *p;
    assert_int_equal(pageinfo_from_fetch(&r, &p), ERR_OK);
    assert_int_equal(p->n_intrinsic, 2);
    assert_int_equal(p->n_transversal, 1);
    assert_null(p->intrinsic_anchor);
    assert_null(p->transversal_anchor);
    pageinfo_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(anchors_kept_when_asked),
        cmocka_unit_test(no_anchors_by_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
