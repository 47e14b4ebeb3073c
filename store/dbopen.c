/* Resolves and opens the database a command works on, starting the embedded one if needed. */
#include "store/dbopen.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/migrate.h"
#include "store/store.h"

static int is_source_tree(const char *dir)
{
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/sql", dir);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    snprintf(path, sizeof path, "%s/CMakeLists.txt", dir);
    return stat(path, &st) == 0;
}

/*
 * The directory that holds the project's runtime state (var/): $SITESCOUT_HOME if
 * set, else the source tree the binary was built in (found by walking up from the
 * executable to a directory with sql/ and CMakeLists.txt), else the current
 * directory. Returns a malloc'd path the caller frees, or NULL on out of memory.
 */
static char *dbopen_home_dir(void)
{
    const char *env = getenv("SITESCOUT_HOME");
    if (env && *env)
        return strdup(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash;
        while ((slash = strrchr(exe, '/')) != NULL) {
            *slash = '\0';
            if (exe[0] && is_source_tree(exe))
                return strdup(exe);
        }
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd))
        return strdup(cwd);
    return strdup(".");
}

enum err dbopen_embedded(struct pgembed *pg, const char *base_dir, int port, int tcp)
{
    if (base_dir)
        return pgembed_init(pg, base_dir, port, tcp);
    char *home = dbopen_home_dir();
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

enum err dbopen_resolve_url(const char *url, const char *base_dir, char **out)
{
    *out = NULL;
    if (!url || !*url)
        url = getenv("SITESCOUT_DB");
    if (url && *url) {
        *out = strdup(url);
        return *out ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    }
    struct pgembed pg;
    enum err e = dbopen_embedded(&pg, base_dir, 0, 0);
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

enum err dbopen_open(const char *url, const char *base_dir, struct store **out)
{
    *out = NULL;
    char *resolved;
    enum err e = dbopen_resolve_url(url, base_dir, &resolved);
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
