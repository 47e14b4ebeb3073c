/*
 * server/modelcache: a model read once is kept and shared (one read for many callers);
 * a third model takes the place of the least recently used one nobody uses, which is
 * freed; with every slot in use a caller gets its own, freed when it is done; a read
 * that fails keeps nothing; a model forgotten while in use is freed by its last caller;
 * and threads asking for a few models at once each get the one they asked for, every
 * model read is freed exactly once (ASan and TSan builds check the rest).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "server/modelcache.h"

struct model {
    int64_t job, id;
};

static atomic_int reads, frees;

static enum err load(void *ctx, int64_t job, int64_t id, void **out)
{
    (void)ctx;
    if (id < 0)
        return err_set(ERR_NOTFOUND, "no model %lld", (long long)id);
    struct model *m = malloc(sizeof *m);
    if (!m)
        return ERR_NOMEM;
    *m = (struct model){job, id};
    atomic_fetch_add(&reads, 1);
    *out = m;
    return ERR_OK;
}

static void free_model(void *m)
{
    atomic_fetch_add(&frees, 1);
    free(m);
}

static struct model *get(int64_t job, int64_t id)
{
    void *m = NULL;
    assert_int_equal(modelcache_get(job, id, load, NULL, free_model, &m), ERR_OK);
    assert_non_null(m);
    assert_int_equal(((struct model *)m)->job, job);
    assert_int_equal(((struct model *)m)->id, id);
    return m;
}

static int setup(void **state)
{
    (void)state;
    modelcache_clear();
    atomic_store(&reads, 0);
    atomic_store(&frees, 0);
    return 0;
}

static void test_kept_and_shared(void **state)
{
    (void)state;
    struct model *a = get(1, 10), *b = get(1, 10);
    assert_ptr_equal(a, b);
    assert_int_equal(atomic_load(&reads), 1);
    modelcache_done(a);
    modelcache_done(b);
    assert_ptr_equal(get(1, 10), a); /* kept when nobody uses it */
    modelcache_done(a);
    assert_int_equal(atomic_load(&reads), 1);
    /* The same id of another job is another model. */
    struct model *c = get(2, 10);
    assert_ptr_not_equal(c, a);
    modelcache_done(c);
    assert_int_equal(atomic_load(&frees), 0);
}

static void test_least_recently_used_goes(void **state)
{
    (void)state;
    modelcache_done(get(1, 1));
    modelcache_done(get(1, 2));
    modelcache_done(get(1, 1)); /* 1 used last: 2 goes */
    modelcache_done(get(1, 3));
    assert_int_equal(atomic_load(&frees), 1);
    int before = atomic_load(&reads);
    modelcache_done(get(1, 1));
    modelcache_done(get(1, 3));
    assert_int_equal(atomic_load(&reads), before);
    modelcache_done(get(1, 2));
    assert_int_equal(atomic_load(&reads), before + 1);
}

static void test_every_slot_in_use(void **state)
{
    (void)state;
    struct model *held[MODELCACHE_SLOTS];
    for (int i = 0; i < MODELCACHE_SLOTS; i++)
        held[i] = get(1, i);
    struct model *own = get(1, 100), *own2 = get(1, 100);
    assert_ptr_not_equal(own, own2); /* not kept: each caller its own */
    modelcache_done(own);
    modelcache_done(own2);
    assert_int_equal(atomic_load(&frees), 2);
    for (int i = 0; i < MODELCACHE_SLOTS; i++) {
        assert_ptr_equal(get(1, i), held[i]); /* the kept ones stay */
        modelcache_done(held[i]);
        modelcache_done(held[i]);
    }
    assert_int_equal(atomic_load(&frees), 2);
}

static void test_failed_read_keeps_nothing(void **state)
{
    (void)state;
    void *m = (void *)1;
    assert_int_equal(modelcache_get(1, -1, load, NULL, free_model, &m), ERR_NOTFOUND);
    assert_null(m);
    modelcache_done(NULL);
    assert_int_equal(atomic_load(&reads), 0);
}

static void test_forgotten_while_in_use(void **state)
{
    (void)state;
    struct model *a = get(1, 1);
    modelcache_done(get(1, 2));
    modelcache_clear();
    assert_int_equal(atomic_load(&frees), 1); /* 2, unused */
    assert_int_equal(a->id, 1);               /* still the caller's */
    modelcache_done(a);
    assert_int_equal(atomic_load(&frees), 2);
    modelcache_done(get(1, 1));
    assert_int_equal(atomic_load(&reads), 3); /* read again */
}

#define THREADS 8
#define ROUNDS  2000

static void *asker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        int64_t job = 1 + rand_r(&seed) % 2, id = 1 + rand_r(&seed) % 3;
        void *m = NULL;
        if (modelcache_get(job, id, load, NULL, free_model, &m) != ERR_OK || !m)
            return (void *)1;
        struct model *got = m;
        int wrong = got->job != job || got->id != id;
        modelcache_done(m);
        if (wrong)
            return (void *)1;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, asker, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        assert_int_equal(pthread_join(t[i], &bad), 0);
        assert_null(bad);
    }
    modelcache_clear();
    assert_true(atomic_load(&reads) >= 6);
    assert_int_equal(atomic_load(&frees), atomic_load(&reads));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_kept_and_shared, setup),
        cmocka_unit_test_setup(test_least_recently_used_goes, setup),
        cmocka_unit_test_setup(test_every_slot_in_use, setup),
        cmocka_unit_test_setup(test_failed_read_keeps_nothing, setup),
        cmocka_unit_test_setup(test_forgotten_while_in_use, setup),
        cmocka_unit_test_setup(test_threads, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
