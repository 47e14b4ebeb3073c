/* Resolves and opens the database a command works on, starting the embedded one if needed. */
#include "cli/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "store/migrate.h"
#include "store/store.h"

enum err db_embedded(struct pgembed *pg, const char *base_dir, int port, int tcp)
{
    if (base_dir)
        return pgembed_init(pg, base_dir, port, tcp);
    char *home = cli_home_dir();
    if (!home)
        return err_set(ERR_NOMEM, "out of memory");
    size_t n = strlen(home) + sizeof "/var/pg";
    char *base = malloc(n);
    enum err e = ERR_NOMEM;
    if (base) {
        snprintf(base, n, "%s/var/pg", home);
        e = pgembed_init(pg, base, port, tcp);
    }
    free(base);
    free(home);
    return e;
}

enum err db_resolve_url(const char *url, const char *base_dir, char **out)
{
    *out = NULL;
    if (!url || !*url)
        url = getenv("SITESCOUT_DB");
    if (url && *url) {
        *out = strdup(url);
        return *out ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    }
    struct pgembed pg;
    enum err e = db_embedded(&pg, base_dir, 0, 0);
    if (e)
        return e;
    e = pgembed_start(&pg);
    if (!e) {
        *out = pgembed_url(&pg);
        if (!*out)
            e = err_set(ERR_NOMEM, "out of memory");
    }
    pgembed_release(&pg);
    return e;
}

enum err db_open(const char *url, const char *base_dir, struct store **out)
{
    *out = NULL;
    char *resolved;
    enum err e = db_resolve_url(url, base_dir, &resolved);
    if (e)
        return e;
    struct store *s;
    e = store_open(resolved, 10000, &s);
    free(resolved);
    if (e)
        return e;
    e = migrate_apply(s, NULL);
    if (e) {
        store_free(s);
        return e;
    }
    *out = s;
    return ERR_OK;
}
