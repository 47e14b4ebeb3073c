/* The test cluster started by the CTest fixture, for cmocka tests that need PostgreSQL. */
#include "testdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/migrate.h"
#include "store/store.h"

const char *testdb_url(void)
{
    static char url[1024];
    if (url[0])
        return url;
    const char *bin = getenv("SITESCOUT_BIN"), *dir = getenv("SITESCOUT_TEST_PGDIR");
    if (!bin || !dir)
        return NULL;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' db --data-dir '%s' url", bin, dir);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char *line = fgets(url, sizeof url, p);
    pclose(p);
    if (!line) {
        url[0] = '\0';
        return NULL;
    }
    url[strcspn(url, "\n")] = '\0';
    return url;
}

/* Connect to url and apply the migrations. */
static int open_migrated(const char *url, struct store **s)
{
    *s = NULL;
    if (!url || store_open(url, 5000, s) != ERR_OK)
        return -1;
    if (migrate_apply(*s, NULL) != ERR_OK) {
        store_free(*s);
        *s = NULL;
        return -1;
    }
    return 0;
}

int testdb_open(struct store **s)
{
    return open_migrated(testdb_url(), s);
}

int testdb_open_private(const char *name, struct store **s)
{
    *s = NULL;
    const char *url = testdb_url();
    /* postgresql://user@/DBNAME?host=...: the same with name for DBNAME */
    const char *at = url ? strstr(url, "@/") : NULL;
    const char *q = at ? strchr(at + 2, '?') : NULL;
    if (!q || store_create_database(url, name) != ERR_OK)
        return -1;
    char mine[1200];
    snprintf(mine, sizeof mine, "%.*s%s%s", (int)(at + 2 - url), url, name, q);
    if (open_migrated(mine, s) != 0)
        return -1;
    if (store_exec(*s, "TRUNCATE jobs, sites, pages, edges CASCADE", 0, NULL) != ERR_OK) {
        store_free(*s);
        *s = NULL;
        return -1;
    }
    return 0;
}
