/* WARC archives (plain or multi-member gzip): an index of response records by URL. */
#ifndef SITESCOUT_REPLAY_WARC_H
#define SITESCOUT_REPLAY_WARC_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/*
 * An archive is one or more WARC files indexed once at start-up. The index holds,
 * per response record, where its HTTP block starts; the block itself stays on disk
 * and is read (inflated) on demand with a struct warcreader (replay/warcreader.h).
 * Only `response` records with an http:// or https:// WARC-Target-URI are indexed,
 * by their URL normalised with warcurl_normalize (replay/warcurl.h); for a URL that
 * appears more than once the first record (in file order) wins.
 *
 * Plain .warc files and .warc.gz files (detected by the gzip magic, not the name)
 * are both read. For gzip the usual one-member-per-record layout is fastest, but
 * several records per member, or one member for the whole file, also work.
 *
 * Errors: a malformed record or corrupt gzip data fails warc_archive_add with
 * ERR_PARSE and a message naming the file and the offset of the record (for gzip,
 * of the member it starts in). A record cut off by the end of the file (a truncated
 * last record) is skipped with a warning on the log.
 */

struct warc_archive;

/* One indexed response record. */
struct warc_record {
    uint64_t offset; /* where reading starts: the gzip member holding the block, or the block */
    uint64_t skip;   /* uncompressed bytes from offset to the first byte of the block */
    uint64_t length; /* length of the HTTP block (status line, headers, body) */
    uint64_t clen; /* compressed bytes from offset to the end of the block's member; 0 = unknown */
    uint32_t file; /* which file of the archive */
    uint32_t url;  /* the normalised URL: offset into the archive's string pool */
    uint32_t hash; /* hash of the normalised URL */
};

/* One file of an archive, open for reading while the archive lives. */
struct warc_file {
    char *path;
    int fd;
    int gz; /* gzip members, else plain */
};

/* Heap lifecycle. warc_archive_free accepts NULL and closes the files. */
struct warc_archive *warc_archive_new(void);
void warc_archive_free(struct warc_archive *a);

/*
 * Index the response records of one WARC file and keep it open for reading. On an
 * error the records of this file are dropped and the archive stays usable.
 */
enum err warc_archive_add(struct warc_archive *a, const char *path) WARN_UNUSED;

/* Counts over all files added so far. */
size_t warc_archive_count(const struct warc_archive *a); /* indexed records */
size_t warc_archive_hosts(const struct warc_archive *a); /* distinct hosts */
size_t
warc_archive_duplicates(const struct warc_archive *a); /* records shadowed by an earlier URL */

/* The record for a normalised URL (see warcurl_normalize), or NULL. Borrowed. */
const struct warc_record *warc_archive_find(const struct warc_archive *a, const char *url,
                                            size_t len);

/* The record number `i` (0 <= i < count), in index order. Borrowed. */
const struct warc_record *warc_archive_record(const struct warc_archive *a, size_t i);

/* The normalised URL of a record. Borrowed from the archive. */
const char *warc_record_url(const struct warc_archive *a, const struct warc_record *r);

/* Whether some record's URL has this authority ("host" or "host:port", normalised). */
int warc_archive_has_host(const struct warc_archive *a, const char *host, size_t len);

/* The path of file number `file`. Borrowed. */
const char *warc_archive_path(const struct warc_archive *a, uint32_t file);

/* File number `file` (a record's), or NULL if there is no such file. Borrowed. */
const struct warc_file *warc_archive_file(const struct warc_archive *a, uint32_t file);

#endif
