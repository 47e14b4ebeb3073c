/* Listing a directory's WARC files in name order. */
#include "replay/warcdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static int is_warc_name(const char *name)
{
    return name[0] != '.' && (ends_with(name, ".warc") || ends_with(name, ".warc.gz") ||
                              ends_with(name, ".warc.open") || ends_with(name, ".warc.gz.open"));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void warcdir_free(char **paths, size_t n)
{
    if (!paths)
        return;
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

enum err warcdir_list(const char *dir, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return err_set(ERR_IO, "%s: %s", dir, strerror(errno));
    char **list = NULL;
    size_t len = 0, cap = 0;
    enum err e = ERR_OK;
    struct dirent *ent;
    while (!e && (ent = readdir(d)) != NULL) {
        if (!is_warc_name(ent->d_name))
            continue;
        if (len == WARCDIR_FILES_MAX) {
            e = err_set(ERR_TOOBIG, "%s: more than %d WARC files", dir, WARCDIR_FILES_MAX);
            break;
        }
        if (grow_array((void **)&list, &cap, len + 1, sizeof *list) != ERR_OK) {
            e = err_set(ERR_NOMEM, "out of memory");
            break;
        }
        size_t plen = strlen(dir) + 1 + strlen(ent->d_name) + 1;
        if (!(list[len] = malloc(plen))) {
            e = err_set(ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(list[len++], plen, "%s/%s", dir, ent->d_name);
    }
    closedir(d);
    if (e) {
        warcdir_free(list, len);
        return e;
    }
    if (len)
        qsort(list, len, sizeof *list, by_name);
    *paths = list;
    *n = len;
    return ERR_OK;
}
