/* WARC archives: the files, open for reading, and the index their records were scanned into. */
#include "replay/warc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "replay/warcindex.h"
#include "replay/warcscan.h"

struct warc_archive {
    struct warc_file *files;
    uint32_t nfiles;
    size_t cap_files;
    struct warcindex idx;
};

struct warc_archive *warc_archive_new(void)
{
    return calloc(1, sizeof(struct warc_archive));
}

void warc_archive_free(struct warc_archive *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->nfiles; i++) {
        if (a->files[i].fd >= 0)
            close(a->files[i].fd);
        free(a->files[i].path);
    }
    free(a->files);
    warcindex_release(&a->idx);
    free(a);
}

size_t warc_archive_count(const struct warc_archive *a)
{
    return a->idx.nrecs;
}

size_t warc_archive_hosts(const struct warc_archive *a)
{
    return a->idx.nhosts;
}

size_t warc_archive_duplicates(const struct warc_archive *a)
{
    return a->idx.duplicates;
}

const struct warc_record *warc_archive_find(const struct warc_archive *a, const char *url,
                                            size_t len)
{
    return warcindex_find(&a->idx, url, len);
}

const struct warc_record *warc_archive_record(const struct warc_archive *a, size_t i)
{
    return i < a->idx.nrecs ? &a->idx.recs[i] : NULL;
}

const char *warc_record_url(const struct warc_archive *a, const struct warc_record *r)
{
    return a->idx.pool + r->url;
}

int warc_archive_has_host(const struct warc_archive *a, const char *host, size_t len)
{
    return warcindex_has_host(&a->idx, host, len);
}

const char *warc_archive_path(const struct warc_archive *a, uint32_t file)
{
    return file < a->nfiles ? a->files[file].path : "?";
}

const struct warc_file *warc_archive_file(const struct warc_archive *a, uint32_t file)
{
    return file < a->nfiles ? &a->files[file] : NULL;
}

enum err warc_archive_add(struct warc_archive *a, const char *path)
{
    if (a->nfiles == UINT32_MAX)
        return err_set(ERR_TOOBIG, "too many files");
    if (grow_array((void **)&a->files, &a->cap_files, (size_t)a->nfiles + 1, sizeof *a->files) !=
        ERR_OK)
        return err_set(ERR_NOMEM, "out of memory");

    struct warcindex_mark mark;
    warcindex_mark(&a->idx, &mark);
    char *copy = NULL;
    int gz = 0;
    enum err e = ERR_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        e = err_set(ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if ((e = warcscan_file(&a->idx, path, fd, a->nfiles, &gz)))
        goto out;
    if (!(copy = strdup(path)))
        e = err_set(ERR_NOMEM, "out of memory");
out:
    if (e) {
        if (fd >= 0)
            close(fd);
        warcindex_rollback(&a->idx, &mark);
        return e;
    }
    a->files[a->nfiles++] = (struct warc_file){copy, fd, gz};
    return ERR_OK;
}
