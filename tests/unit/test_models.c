/*
 * store/models against a real private PostgreSQL (the CTest pg fixture): a trained
 * page classifier (kNN or SVM) goes into the models table and comes back byte for byte,
 * and the loaded model classifies exactly as the original.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "store/migrate.h"
#include "store/models.h"
#include "store/store.h"
#include "testdb.h"

static int setup(void **state)
{
    struct store *s;
    int applied;
    if (testdb_open(&s) != 0)
        return -1;
    if (migrate_apply(s, &applied) != ERR_OK) {
        store_free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    store_free(*state);
    return 0;
}

static const char *const texts[] = {
    "rocket orbit launch satellite moon", "planet shuttle telescope rocket orbit",
    "moon landing rocket launch pad",     "satellite orbit telescope planet",
    "recipe bake flour sugar oven",       "butter dinner kitchen recipe spice",
    "garlic spice dinner oven bake",      "flour sugar butter recipe kitchen",
};

static struct pagecls *train(enum pagecls_kind kind)
{
    struct pagecls_doc docs[8];
    for (int i = 0; i < 8; i++)
        docs[i] = (struct pagecls_doc){texts[i], strlen(texts[i]),
                                       i < 4 ? PAGECLS_TARGET : PAGECLS_OTHER, (uint32_t)i};
    struct pagecls_params p;
    pagecls_params_default(&p);
    p.centroids = 2;
    p.kind = kind;
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train_cv(&p, docs, 8, 4, &m, NULL), ERR_OK);
    return m;
}

static void round_trip(struct store *s, enum pagecls_kind kind)
{
    struct pagecls *m = train(kind);
    struct buf bytes;
    buf_init(&bytes, 0);
    assert_int_equal(pagecls_serialize(m, &bytes), ERR_OK);
    const struct pagecls_cv *cv = pagecls_get_cv(m);

    int64_t id = 0;
    assert_int_equal(models_save(s, 0, MODELS_PAGES, PAGECLS_FORMAT_VERSION, cv->p_err,
                                 cv->accuracy, "{\"folds\": 4}", "{\"centroids_per_class\": 2}",
                                 bytes.data, bytes.len, &id),
                     ERR_OK);
    assert_true(id > 0);

    struct models_record *rec = NULL;
    assert_int_equal(models_load(s, id, &rec), ERR_OK);
    assert_int_equal(rec->id, id);
    assert_int_equal(rec->job_id, 0);
    assert_int_equal(rec->format_version, PAGECLS_FORMAT_VERSION);
    assert_float_equal(rec->p_err, cv->p_err, 0); /* %.17g: exact */
    assert_float_equal(rec->page_accuracy, cv->accuracy, 0);
    assert_string_equal(rec->cv, "{\"folds\": 4}");
    assert_string_equal(rec->params, "{\"centroids_per_class\": 2}");
    assert_non_null(rec->created_at);
    assert_int_equal(rec->len, bytes.len);
    assert_memory_equal(rec->data, bytes.data, bytes.len);

    /* The loaded model classifies exactly as the original. */
    struct pagecls *back = NULL;
    assert_int_equal(pagecls_deserialize(rec->data, rec->len, &back), ERR_OK);
    assert_int_equal(pagecls_kind(back), kind);
    assert_float_equal(pagecls_p_err(back), cv->p_err, 0);
    struct pagecls_scratch *s1, *s2;
    assert_int_equal(pagecls_scratch_new(m, &s1), ERR_OK);
    assert_int_equal(pagecls_scratch_new(back, &s2), ERR_OK);
    static const char *const probes[] = {"rocket launch to the moon", "bake a sugar cake",
                                         "orbit dinner", "nothing known here", ""};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        struct pagecls_result a, b;
        assert_int_equal(pagecls_classify(m, s1, probes[i], strlen(probes[i]), &a), ERR_OK);
        assert_int_equal(pagecls_classify(back, s2, probes[i], strlen(probes[i]), &b), ERR_OK);
        assert_memory_equal(a.pr, b.pr, 2 * sizeof a.pr[0]);
        assert_memory_equal(a.dmin, b.dmin, 2 * sizeof a.dmin[0]);
        assert_memory_equal(&a.margin, &b.margin, sizeof a.margin);
        if (kind == PAGECLS_SVM && i == 0) /* a space page, on the target's side */
            assert_true(a.margin > 0 && a.pr[PAGECLS_TARGET] > 0.5);
    }
    pagecls_scratch_free(s1);
    pagecls_scratch_free(s2);
    pagecls_free(back);
    models_record_free(rec);
    buf_release(&bytes);
    pagecls_free(m);
}

static void test_round_trip(void **state)
{
    round_trip(*state, PAGECLS_KNN);
    round_trip(*state, PAGECLS_SVM);
}

static void test_bytes_are_binary_safe(void **state)
{
    struct store *s = *state;
    unsigned char all[512];
    for (int i = 0; i < 512; i++)
        all[i] = (unsigned char)(i * 7);
    int64_t id;
    /* NULL JSON and an unknown accuracy store NULLs. */
    assert_int_equal(
        models_save(s, -1, MODELS_PAGES, 99, 0.25, NAN, NULL, NULL, all, sizeof all, &id), ERR_OK);
    struct models_record *rec;
    assert_int_equal(models_load(s, id, &rec), ERR_OK);
    assert_int_equal(rec->len, sizeof all);
    assert_memory_equal(rec->data, all, sizeof all);
    assert_true(isnan(rec->page_accuracy));
    assert_null(rec->cv);
    assert_null(rec->params);
    assert_int_equal(rec->format_version, 99);
    models_record_free(rec);
    /* An empty model is stored as an empty bytea. */
    assert_int_equal(models_save(s, 0, MODELS_PAGES, 1, 0, 0.5, NULL, NULL, all, 0, &id), ERR_OK);
    assert_int_equal(models_load(s, id, &rec), ERR_OK);
    assert_int_equal(rec->len, 0);
    models_record_free(rec);
    models_record_free(NULL);
}

static void test_latest_of_a_job(void **state)
{
    struct store *s = *state;
    const char *params[] = {"models-test"};
    struct store_rows *rows;
    assert_int_equal(store_query(s,
                                 "INSERT INTO jobs (topic, body, params) VALUES ($1, '{}', '{}') "
                                 "RETURNING id",
                                 1, params, &rows),
                     ERR_OK);
    int64_t job = strtoll(store_rows_get(rows, 0, 0), NULL, 10);
    store_rows_free(rows);

    struct models_record *rec = NULL;
    assert_int_equal(models_load_latest(s, job, MODELS_PAGES, &rec), ERR_NOTFOUND);
    assert_null(rec);
    assert_non_null(strstr(err_msg(), "has no pages model"));
    int64_t first, second;
    assert_int_equal(models_save(s, job, MODELS_PAGES, 1, 0.1, 0.9, NULL, NULL, "a", 1, &first),
                     ERR_OK);
    assert_int_equal(models_save(s, job, MODELS_PAGES, 1, 0.2, 0.8, NULL, NULL, "b", 1, &second),
                     ERR_OK);
    assert_int_equal(models_load_latest(s, job, MODELS_PAGES, &rec), ERR_OK);
    assert_int_equal(rec->id, second);
    assert_int_equal(rec->job_id, job);
    assert_int_equal(rec->data[0], 'b');
    assert_string_equal(rec->kind, MODELS_PAGES);
    models_record_free(rec);

    /* A homepage model beside it: each kind has its own newest. */
    int64_t home;
    assert_int_equal(models_save(s, job, MODELS_HOMEPAGES, 1, 0, NAN, NULL, NULL, "h", 1, &home),
                     ERR_OK);
    assert_int_equal(models_load_latest(s, job, MODELS_PAGES, &rec), ERR_OK);
    assert_int_equal(rec->id, second);
    models_record_free(rec);
    assert_int_equal(models_load_latest(s, job, MODELS_HOMEPAGES, &rec), ERR_OK);
    assert_int_equal(rec->id, home);
    assert_string_equal(rec->kind, MODELS_HOMEPAGES);
    assert_int_equal(rec->data[0], 'h');
    models_record_free(rec);
    /* Strategy relevance_degree's key phrases (migration 008), text kept byte for byte. */
    int64_t keys;
    assert_int_equal(
        models_save(s, job, MODELS_KEYPHRASES, 1, 0, NAN, NULL, NULL, "bank\nloan\n", 10, &keys),
        ERR_OK);
    assert_int_equal(models_load_latest(s, job, MODELS_KEYPHRASES, &rec), ERR_OK);
    assert_int_equal(rec->id, keys);
    assert_string_equal(rec->kind, MODELS_KEYPHRASES);
    assert_int_equal(rec->len, 10);
    assert_memory_equal(rec->data, "bank\nloan\n", 10);
    models_record_free(rec);
    /* A kind the table does not know is refused, not stored. */
    assert_int_equal(models_save(s, job, "anchors", 1, 0, NAN, NULL, NULL, "x", 1, &home), ERR_DB);

    assert_int_equal(models_load(s, 999999999, &rec), ERR_NOTFOUND);
    assert_non_null(strstr(err_msg(), "no model with id 999999999"));
    /* A job that does not exist: the foreign key refuses. */
    assert_int_equal(
        models_save(s, 999999999, MODELS_PAGES, 1, 0.1, 0.9, NULL, NULL, "a", 1, &first), ERR_DB);
    /* Malformed JSON is refused by the database, not stored. */
    assert_int_equal(models_save(s, 0, MODELS_PAGES, 1, 0.1, 0.9, "{nope", NULL, "a", 1, &first),
                     ERR_DB);
    assert_int_equal(models_save(s, 0, MODELS_PAGES, 1, NAN, 0.9, NULL, NULL, "a", 1, &first),
                     ERR_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bytes_are_binary_safe),
        cmocka_unit_test(test_latest_of_a_job),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
