/* libFuzzer harness for the replay web's parsers: WARC files and headers, HTTP heads, URLs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "replay/httpmsg.h"
#include "replay/synth.h"
#include "replay/warc.h"
#include "replay/warchead.h"
#include "replay/warcreader.h"
#include "replay/warcurl.h"

/* The input as a whole WARC file (plain or gzip): index it and read every block. */
static void fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_warc", 0);
        if (fd < 0)
            return;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return;
    struct warc_archive *a = warc_archive_new();
    if (a && warc_archive_add(a, path) == ERR_OK) {
        struct warcreader *r = warcreader_new();
        for (size_t i = 0; r && i < warc_archive_count(a); i++) {
            const struct warc_record *rec = warc_archive_record(a, i);
            const char *url = warc_record_url(a, rec);
            if (warc_archive_find(a, url, strlen(url)) != rec)
                __builtin_trap(); /* every indexed URL finds its own record */
            if (warcreader_start(r, a, rec) != ERR_OK)
                continue;
            char buf[1024];
            size_t got, total = 0;
            while (warcreader_read(r, buf, sizeof buf, &got) == ERR_OK && got)
                total += got;
            if (total > rec->length)
                __builtin_trap();
        }
        warcreader_free(r);
    }
    warc_archive_free(a);
}

/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    const char *s = (const char *)data;

    size_t hl = warchead_end(s, size);
    struct warchead wh;
    if (hl && warchead_parse(s, hl, &wh) == ERR_OK && wh.uri &&
        (wh.uri < s || wh.uri + wh.uri_len > s + hl))
        __builtin_trap();

    char url[WARCURL_MAX];
    size_t n, hoff, hlen;
    if (warcurl_normalize(s, size, url, sizeof url, &n, &hoff, &hlen) == ERR_OK &&
        (n != strlen(url) || url[hoff + hlen] != '/'))
        __builtin_trap();

    hl = httpmsg_head_end(s, size);
    struct httpmsg_request rq;
    if (hl)
        (void)!httpmsg_parse_request(s, hl, &rq);
    struct httpmsg_response rs;
    if (httpmsg_parse_response(s, size, &rs) == ERR_OK) {
        char out[4096];
        if (httpmsg_reframe(s, &rs, size - rs.head_len, size & 1, out, sizeof out, &n) == ERR_OK &&
            n > sizeof out)
            __builtin_trap();
    }

    struct buf b;
    buf_init(&b, 64 * 1024);
    (void)!synth_trap_page(s, size, &b);
    buf_release(&b);

    fuzz_file(data, size);
    return 0;
}
