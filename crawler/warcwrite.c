/* WARC capture files: gzip members per record, .open while written, rotation by size. */
#include "crawler/warcwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/log.h"
#include "crawler/warcrec.h"

#define SEQ_MAX  99999 /* five digits */
#define OPEN_EXT ".open"

/* An exchange waiting for the writer thread: a copy of a struct warcwrite_exchange. */
struct item {
    struct item *next;
    struct warcwrite_exchange x; /* its strings point into data */
    size_t size;                 /* bytes held, for the queue's cap */
    char data[];
};

struct warcwrite {
    pthread_mutex_t lock; /* guards refs, the queue, stop, busy and stats */
    pthread_cond_t work;  /* an item was queued, or stop */
    pthread_cond_t room;  /* an item was written */
    int refs;
    struct item *first, *last;
    size_t queued; /* bytes in the queue */
    int busy;      /* the writer is writing an item */
    int stop;
    pthread_t thread;
    int thread_started;
    struct warcwrite_stats stats; /* as of the last item written */

    /* The writer thread's own (and warcwrite_new's and the last unref's, around it). */
    char *dir, *prefix, *is_part_of;
    uint64_t max_size;
    int fd;       /* the open file, or -1 */
    unsigned seq; /* its number, or the next one to try */
    uint64_t size;
    z_stream z;
    int z_ready;
    struct buf rec, gz, head; /* scratch: a record, its gzip member, an HTTP head */
    struct warcwrite_stats wstats;
    uint64_t errors;
};

static void *writer_main(void *arg);

enum err warcwrite_new(const struct warcwrite_config *c, struct warcwrite **out)
{
    *out = NULL;
    if (!c->prefix || !*c->prefix || strchr(c->prefix, '/'))
        return err_set(ERR_INVAL, "bad WARC file prefix");
    struct warcwrite *w = calloc(1, sizeof *w);
    if (!w)
        return err_set(ERR_NOMEM, "out of memory");
    w->refs = 1;
    w->fd = -1;
    w->max_size = c->max_size ? c->max_size : WARCWRITE_MAX_SIZE_DEFAULT;
    w->dir = strdup(c->dir);
    w->prefix = strdup(c->prefix);
    w->is_part_of = c->is_part_of ? strdup(c->is_part_of) : NULL;
    buf_init(&w->rec, 0);
    buf_init(&w->gz, (size_t)1 << 30);
    buf_init(&w->head, 0);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->room, NULL);
    if (!w->dir || !w->prefix || (c->is_part_of && !w->is_part_of) ||
        deflateInit2(&w->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        warcwrite_unref(w);
        return err_set(ERR_NOMEM, "out of memory");
    }
    w->z_ready = 1;
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        warcwrite_unref(w);
        return err_set(ERR_NOMEM, "cannot start the WARC writer thread");
    }
    w->thread_started = 1;
    *out = w;
    return ERR_OK;
}

static void warcwrite_path(const struct warcwrite *w, unsigned seq, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s-%05u.warc.gz", w->dir, w->prefix, seq);
}

/* Close the open file and give it its final name. The writer thread (or the last unref). */
static void file_close(struct warcwrite *w)
{
    if (w->fd < 0)
        return;
    char path[PATH_MAX], open_path[PATH_MAX + sizeof OPEN_EXT];
    warcwrite_path(w, w->seq, path, sizeof path);
    snprintf(open_path, sizeof open_path, "%s%s", path, OPEN_EXT);
    if (close(w->fd) != 0)
        log_error("WARC %s: %s", open_path, strerror(errno));
    else if (rename(open_path, path) != 0)
        log_error("WARC %s: cannot rename: %s", open_path, strerror(errno));
    w->fd = -1;
    w->seq++;
}

void warcwrite_ref(struct warcwrite *w)
{
    pthread_mutex_lock(&w->lock);
    w->refs++;
    pthread_mutex_unlock(&w->lock);
}

void warcwrite_unref(struct warcwrite *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    int last = --w->refs == 0;
    if (last) {
        w->stop = 1; /* the writer drains the queue first */
        pthread_cond_signal(&w->work);
    }
    pthread_mutex_unlock(&w->lock);
    if (!last)
        return;
    if (w->thread_started)
        pthread_join(w->thread, NULL);
    file_close(w);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->room);
    pthread_mutex_destroy(&w->lock);
    if (w->z_ready)
        deflateEnd(&w->z);
    buf_release(&w->rec);
    buf_release(&w->gz);
    buf_release(&w->head);
    free(w->dir);
    free(w->prefix);
    free(w->is_part_of);
    free(w);
}

/* ---- records -------------------------------------------------------------- */

/* Compress len bytes into the gzip member in w->gz; finish it when last. */
static enum err gz_add(struct warcwrite *w, const void *data, size_t len, int last)
{
    w->z.next_in = (Bytef *)(uintptr_t)data;
    w->z.avail_in = (uInt)len; /* callers feed pieces well below 4 GiB */
    for (;;) {
        if (w->gz.cap - w->gz.len < 16384 + 1) {
            /* grow: append and take back 64 KiB of room */
            size_t had = w->gz.len;
            static const char room[65536];
            if (buf_append(&w->gz, room, sizeof room) != ERR_OK)
                return err_set(ERR_NOMEM, "out of memory compressing a WARC record");
            w->gz.len = had;
        }
        w->z.next_out = (Bytef *)w->gz.data + w->gz.len;
        w->z.avail_out = (uInt)(w->gz.cap - w->gz.len - 1);
        uInt before = w->z.avail_out;
        int rc = deflate(&w->z, last ? Z_FINISH : Z_NO_FLUSH);
        w->gz.len += before - w->z.avail_out;
        if (rc == Z_STREAM_END)
            return ERR_OK;
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return err_set(ERR_IO, "deflate failed");
        if (!last && w->z.avail_in == 0 && w->z.avail_out != 0)
            return ERR_OK; /* all taken in; the rest comes out with later pieces */
    }
}

/* Write all of data[len] to the open file. The writer thread. */
static enum err file_write(struct warcwrite *w, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(w->fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            char path[PATH_MAX];
            warcwrite_path(w, w->seq, path, sizeof path);
            return err_set(ERR_IO, "WARC %s%s: %s", path, OPEN_EXT, strerror(errno));
        }
        data += n;
        len -= (size_t)n;
        w->size += (uint64_t)n;
        w->wstats.bytes += (uint64_t)n;
    }
    return ERR_OK;
}

/*
 * One record as one gzip member: the header (fields f, Content-Length the sum of the
 * parts), then the block in up to two parts, then the two CRLFs. The writer thread.
 */
static enum err record_write(struct warcwrite *w, struct warcrec_fields *f, const char *a,
                             size_t alen, const char *b, size_t blen)
{
    buf_reset(&w->rec);
    buf_reset(&w->gz);
    f->content_length = (uint64_t)alen + blen;
    enum err e = warcrec_header(&w->rec, f);
    if (e || deflateReset(&w->z) != Z_OK)
        return e ? e : err_set(ERR_IO, "deflateReset failed");
    if (!(e = gz_add(w, w->rec.data, w->rec.len, 0)) && !(e = gz_add(w, a, alen, 0)) &&
        !(e = gz_add(w, b, blen, 0)) && !(e = gz_add(w, "\r\n\r\n", 4, 1)))
        e = file_write(w, w->gz.data, w->gz.len);
    return e;
}

/* Open the next free file number and write its warcinfo. The writer thread. */
static enum err file_open(struct warcwrite *w)
{
    char path[PATH_MAX], open_path[PATH_MAX + sizeof OPEN_EXT];
    struct stat st;
    for (;; w->seq++) {
        if (w->seq > SEQ_MAX)
            return err_set(ERR_TOOBIG, "WARC: no free file number left in %s", w->dir);
        warcwrite_path(w, w->seq, path, sizeof path);
        snprintf(open_path, sizeof open_path, "%s%s", path, OPEN_EXT);
        if (stat(path, &st) == 0)
            continue;
        w->fd = open(open_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (w->fd >= 0)
            break;
        if (errno != EEXIST)
            return err_set(ERR_IO, "WARC %s: %s", open_path, strerror(errno));
    }
    w->size = 0;
    w->wstats.files++;

    char host[256] = "", info[1024], id[WARCREC_ID_LEN], date[WARCREC_DATE_LEN];
    gethostname(host, sizeof host - 1);
    int n = snprintf(info, sizeof info,
                     "software: sitescout/%s\r\n"
                     "format: WARC File Format 1.1\r\n"
                     "conformsTo: https://iipc.github.io/warc-specifications/specifications/"
                     "warc-format/warc-1.1/\r\n"
                     "hostname: %s\r\n%s%s%s",
                     SITESCOUT_VERSION, host, w->is_part_of ? "isPartOf: " : "",
                     w->is_part_of ? w->is_part_of : "", w->is_part_of ? "\r\n" : "");
    warcrec_new_id(id);
    warcrec_date(time(NULL), date);
    const char *name = strrchr(path, '/') + 1;
    struct warcrec_fields f = {.type = "warcinfo",
                               .id = id,
                               .date = date,
                               .filename = name,
                               .content_type = "application/warc-fields"};
    enum err e =
        record_write(w, &f, info, (size_t)n < sizeof info ? (size_t)n : sizeof info - 1, NULL, 0);
    if (e)
        file_close(w);
    return e;
}

/* The exchange's records. The writer thread, with a file open. */
static enum err exchange_records(struct warcwrite *w, const struct warcwrite_exchange *x)
{
    char req_id[WARCREC_ID_LEN], resp_id[WARCREC_ID_LEN], date[WARCREC_DATE_LEN];
    char block_digest[WARCREC_DIGEST_LEN], payload_digest[WARCREC_DIGEST_LEN];
    warcrec_new_id(req_id);
    warcrec_new_id(resp_id);
    warcrec_date(x->when, date);
    enum err e = ERR_OK;
    if (x->request) {
        if ((e = warcrec_digest(x->request, x->request_len, NULL, 0, block_digest)))
            return e;
        struct warcrec_fields f = {.type = "request",
                                   .id = req_id,
                                   .date = date,
                                   .target_uri = x->url,
                                   .concurrent_to = x->head ? resp_id : NULL,
                                   .ip = x->ip,
                                   .content_type = "application/http;msgtype=request",
                                   .block_digest = block_digest};
        if ((e = record_write(w, &f, x->request, x->request_len, NULL, 0)))
            return e;
        w->wstats.requests++;
    }
    if (!x->head)
        return ERR_OK;
    buf_reset(&w->head);
    int decoded;
    if ((e = warcrec_http_head(x->head, x->head_len, x->body_len, &w->head, &decoded)))
        return e;
    if ((e = warcrec_digest(w->head.data, w->head.len, x->body, x->body_len, block_digest)) ||
        (e = warcrec_digest(x->body, x->body_len, NULL, 0, payload_digest)))
        return e;
    struct warcrec_fields f = {.type = "response",
                               .id = resp_id,
                               .date = date,
                               .target_uri = x->url,
                               .concurrent_to = x->request ? req_id : NULL,
                               .ip = x->ip,
                               .content_type = "application/http;msgtype=response",
                               .block_digest = block_digest,
                               .payload_digest = payload_digest,
                               .truncated = x->truncated};
    if ((e = record_write(w, &f, w->head.data, w->head.len, x->body, x->body_len)))
        return e;
    w->wstats.responses++;
    return ERR_OK;
}

/* Write one exchange. The writer thread. */
static void item_write(struct warcwrite *w, const struct warcwrite_exchange *x)
{
    enum err e = w->fd < 0 ? file_open(w) : ERR_OK;
    if (!e)
        e = exchange_records(w, x);
    if (w->fd >= 0 && w->size >= w->max_size)
        file_close(w);
    if (e && w->errors++ % 1000 == 0)
        log_error("WARC capture: %s (%" PRIu64 " exchanges lost so far)", err_msg(), w->errors);
}

static void *writer_main(void *arg)
{
    struct warcwrite *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->first && !w->stop)
            pthread_cond_wait(&w->work, &w->lock);
        struct item *it = w->first;
        if (!it)
            break; /* stopped, and nothing is left */
        w->first = it->next;
        if (!w->first)
            w->last = NULL;
        w->busy = 1;
        pthread_mutex_unlock(&w->lock);
        item_write(w, &it->x);
        pthread_mutex_lock(&w->lock);
        w->busy = 0;
        w->queued -= it->size;
        w->stats = w->wstats;
        pthread_cond_broadcast(&w->room);
        free(it);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Copy s[n] into *at and return where the copy starts (NULL for NULL). */
static const char *put(char **at, const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *start = *at;
    memcpy(start, s, n);
    start[n] = '\0';
    *at += n + 1;
    return start;
}

enum err warcwrite_exchange(struct warcwrite *w, const struct warcwrite_exchange *x)
{
    if (!x->request && !x->head)
        return ERR_OK;
    size_t url_len = strlen(x->url), ip_len = x->ip ? strlen(x->ip) : 0;
    size_t body_len = x->head ? x->body_len : 0;
    size_t n = url_len + ip_len + x->request_len + x->head_len + body_len + 5;
    struct item *it = malloc(sizeof *it + n);
    if (!it)
        return err_set(ERR_NOMEM, "out of memory queueing a WARC record");
    char *at = it->data;
    it->next = NULL;
    it->size = sizeof *it + n;
    it->x = *x;
    it->x.url = put(&at, x->url, url_len);
    it->x.ip = put(&at, x->ip, ip_len);
    it->x.request = put(&at, x->request, x->request_len);
    it->x.head = put(&at, x->head, x->head_len);
    it->x.body = put(&at, x->head ? (x->body ? x->body : "") : NULL, body_len);
    it->x.body_len = body_len;
    pthread_mutex_lock(&w->lock);
    while (w->queued && w->queued + it->size > WARCWRITE_QUEUE_MAX)
        pthread_cond_wait(&w->room, &w->lock); /* the disk is behind: the crawl waits */
    if (w->last)
        w->last->next = it;
    else
        w->first = it;
    w->last = it;
    w->queued += it->size;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
    return ERR_OK;
}

void warcwrite_flush(struct warcwrite *w)
{
    pthread_mutex_lock(&w->lock);
    while (w->first || w->busy)
        pthread_cond_wait(&w->room, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

void warcwrite_stats(struct warcwrite *w, struct warcwrite_stats *out)
{
    pthread_mutex_lock(&w->lock);
    *out = w->stats;
    pthread_mutex_unlock(&w->lock);
}
