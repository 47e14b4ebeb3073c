/* Unit tests for server/labels: sites.tsv ground truth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/labels.h"

static const char tsv[] =
    "host\ttopic\tsource\tn_pages\thomepage_variant\trole\tnotes\n"
    "www.oceansummit.com\tsci.space\t20news\t23\tframeset\tsci.space:train\tname=neutral\n"
    "www.hubrose.com\tsci.space\t20news\t14\trich\tsci.space:test;rec.autos:train-other\t\r\n"
    "\n"
    "# a comment\n"
    "Mixed.Case.ORG\tsubject.Science.Biology.Birds\twiki\t9\tnav\t"
    "sci.space:train-other;subject.Science.Biology.Birds:start\tx\n"
    "www.cs.cmu.edu\twebkb\twebkb\t100\trich\t\n"
    "noeol.net\trec.autos\t20news\t5\tnav\tsci.space:test";

static struct labels *load(const char *text)
{
    struct labels *l = NULL;
    if (labels_parse(text, strlen(text), "sites.tsv", &l) != ERR_OK)
        fail_msg("parse failed: %s", err_msg());
    return l;
}

static void test_parse_and_find(void **state)
{
    (void)state;
    struct labels *l = load(tsv);
    assert_int_equal(labels_count(l), 5);
    const struct labels_site *s = labels_get(l, 0);
    assert_string_equal(s->host, "www.oceansummit.com");
    assert_string_equal(s->topic, "sci.space");
    assert_int_equal(labels_role(s, "sci.space"), LABELS_ROLE_TRAIN);
    assert_int_equal(labels_role(s, "rec.autos"), LABELS_ROLE_NONE);

    s = labels_find(l, "www.hubrose.com");
    assert_non_null(s);
    assert_int_equal(labels_role(s, "sci.space"), LABELS_ROLE_TEST);
    assert_int_equal(labels_role(s, "rec.autos"), LABELS_ROLE_TRAIN_OTHER);
    assert_int_equal(labels_role(s, "sci"), LABELS_ROLE_NONE); /* whole topic names only */

    /* Hosts are kept and found in lower case. */
    s = labels_find(l, "MIXED.case.org");
    assert_non_null(s);
    assert_string_equal(s->host, "mixed.case.org");
    assert_int_equal(labels_role(s, "subject.Science.Biology.Birds"), LABELS_ROLE_START);
    assert_int_equal(labels_role(s, "sci.space"), LABELS_ROLE_TRAIN_OTHER);

    s = labels_find(l, "www.cs.cmu.edu");
    assert_int_equal(labels_role(s, "sci.space"), LABELS_ROLE_NONE); /* empty role column */
    s = labels_find(l, "noeol.net"); /* the last line has no newline */
    assert_non_null(s);
    assert_int_equal(labels_role(s, "sci.space"), LABELS_ROLE_TEST);

    assert_null(labels_find(l, "unknown.org"));
    assert_null(labels_get(l, 5));
    labels_free(l);
    labels_free(NULL);
}

static void test_columns_by_header(void **state)
{
    (void)state;
    struct labels *l = load("role\thost\ttopic\nt:test\ta.com\tt\n");
    const struct labels_site *s = labels_find(l, "a.com");
    assert_non_null(s);
    assert_string_equal(s->topic, "t");
    assert_int_equal(labels_role(s, "t"), LABELS_ROLE_TEST);
    labels_free(l);
    /* A topic with a colon: the role is after the last one. */
    l = load("host\ttopic\trole\nb.com\tx:y\tx:y:train\n");
    assert_int_equal(labels_role(labels_find(l, "b.com"), "x:y"), LABELS_ROLE_TRAIN);
    labels_free(l);
}

struct bad_case {
    const char *text;
    const char *msg;
};

static void test_errors(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"", "sites.tsv: empty"},
        {"host\ttopic\n",
         "sites.tsv:1: the header line must name the columns host, topic and role"},
        {"host\ttopic\trole\na.com\tt\n", "sites.tsv:2: 2 columns, expected at least 3"},
        {"host\ttopic\trole\n\tt\tt:test\n", "sites.tsv:2: empty host"},
        {"host\ttopic\trole\na.com\t\tt:test\n", "sites.tsv:2: empty topic"},
        {"host\ttopic\trole\na.com\tt\tt:tested\n", "sites.tsv:2: role 't:tested' is not"},
        {"host\ttopic\trole\na.com\tt\ttest\n", "sites.tsv:2: role 'test' is not"},
        {"host\ttopic\trole\na.com\tt\t:test\n", "sites.tsv:2: role ':test' is not"},
        {"host\ttopic\trole\na.com\tt\tt:test\nA.com\tu\tt:test\n",
         "sites.tsv:3: host A.com is listed twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct labels *l = (struct labels *)1;
        enum err e = labels_parse(cases[i].text, strlen(cases[i].text), "sites.tsv", &l);
        if (e != ERR_PARSE || l)
            fail_msg("case %zu: got %d (%s)", i, e, err_msg());
        if (!strstr(err_msg(), cases[i].msg))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err_msg(), cases[i].msg);
    }
    /* A line over the cap. */
    size_t n = LABELS_MAX_LINE + 100;
    char *big = malloc(n + 32);
    assert_non_null(big);
    memcpy(big, "host\ttopic\trole\n", sizeof "host\ttopic\trole\n");
    size_t h = strlen(big);
    memset(big + h, 'a', n - h);
    big[n] = '\0';
    struct labels *l;
    assert_int_equal(labels_parse(big, n, "big.tsv", &l), ERR_PARSE);
    assert_non_null(strstr(err_msg(), "big.tsv:2: line longer than"));
    free(big);
}

static void test_load_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_labels.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, tsv, strlen(tsv)), (ssize_t)strlen(tsv));
    close(fd);
    struct labels *l = NULL;
    assert_int_equal(labels_load(path, &l), ERR_OK);
    assert_int_equal(labels_count(l), 5);
    labels_free(l);
    unlink(path);
    assert_int_equal(labels_load(path, &l), ERR_IO);
    assert_null(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_find),
        cmocka_unit_test(test_columns_by_header),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
