/* WARC archives (plain or multi-member gzip): an index of response records by URL. */
#ifndef SITESCOUT_REPLAY_WARC_H
#define SITESCOUT_REPLAY_WARC_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/*
 * An archive is one or more WARC files indexed once at start-up. The index holds,
 * per response record, where its HTTP block starts; the block itself stays on disk
 * and is read (inflated) on demand with a struct warc_reader. Only `response`
 * records with an http:// or https:// WARC-Target-URI are indexed; for a URL that
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

#define WARC_HEADER_MAX (64 * 1024) /* cap on one WARC record header */
#define WARC_URL_MAX    8192        /* cap on a URL, normalised or not */

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

/* The record for a normalised URL (see warc_url_normalize), or NULL. Borrowed. */
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

/*
 * Normalise an absolute http(s) URL the way archives write them: scheme and host in
 * lower case, no userinfo, no default port (80 for http, 443 for https), no
 * fragment, "/" for an empty path. Path and query are kept byte for byte, but for
 * the hex digits of percent escapes, which are upper-cased (RFC 3986 §6.2.2.1), and a
 * URL with a control character or space before the fragment is refused. Writes a
 * NUL-terminated string of *outlen bytes to out[outsz]. ERR_INVAL if the URL is not
 * absolute http(s) or has a bad port, ERR_TOOBIG if it does not fit.
 * *host_off and *host_len (may be NULL) locate the authority in the output.
 */
enum err warc_url_normalize(const char *url, size_t len, char *out, size_t outsz, size_t *outlen,
                            size_t *host_off, size_t *host_len) WARN_UNUSED;

/* The fields of a WARC record header that the index needs. */
struct warc_header {
    int is_response;         /* WARC-Type: response */
    uint64_t content_length; /* length of the record block */
    const char *uri;         /* WARC-Target-URI without <>, borrowed from the input; or NULL */
    size_t uri_len;
};

/*
 * The length of a record header (version line to the empty line, inclusive) at the
 * start of data, or 0 if no empty line occurs in the first len bytes. Lines end in
 * CRLF or LF.
 */
size_t warc_header_end(const char *data, size_t len);

/* Parse a complete header of head_len bytes (from warc_header_end). ERR_PARSE if malformed. */
enum err warc_header_parse(const char *data, size_t head_len, struct warc_header *h) WARN_UNUSED;

/*
 * Streams the HTTP block of one record: reusable for many records, one at a time.
 * Holds a zlib stream and a small input buffer (about 60 KB in all while in use).
 */
struct warc_reader;

struct warc_reader *warc_reader_new(void);
void warc_reader_free(struct warc_reader *r);

/* Start reading rec's block. The archive must outlive the reads. */
enum err warc_reader_start(struct warc_reader *r, const struct warc_archive *a,
                           const struct warc_record *rec) WARN_UNUSED;

/*
 * Copy up to cap next bytes of the block to buf; *got = 0 at the end of the block.
 * ERR_IO if the file was truncated since indexing, ERR_PARSE for corrupt data.
 */
enum err warc_reader_read(struct warc_reader *r, void *buf, size_t cap, size_t *got) WARN_UNUSED;

#endif
