/* For cmocka tests that need PostgreSQL: the private cluster of the CTest fixture (pg). */
#ifndef SITESCOUT_TESTS_TESTDB_H
#define SITESCOUT_TESTS_TESTDB_H

struct store;

/*
 * The URL of the test cluster (asks `$SITESCOUT_BIN db --data-dir
 * $SITESCOUT_TEST_PGDIR url`), in a static buffer; NULL outside the fixture.
 */
const char *testdb_url(void);

/* Connect to it and apply the migrations; 0 on success. */
int testdb_open(struct store **s);

/*
 * The same in a database of the cluster that only this test uses (created if missing,
 * emptied of jobs): for tests that look at every job of the database, which the tests
 * running beside them in the shared one would disturb.
 */
int testdb_open_private(const char *name, struct store **s);

#endif
