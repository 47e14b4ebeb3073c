/* Unit tests for crawler/warcrec and warcwrite: digests, records read back by the replay's
 * reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/buf.h"
#include "crawler/warcrec.h"
#include "crawler/warcwrite.h"
#include "replay/warc.h"
#include "replay/warcreader.h"

/* ---- digests: SHA-1 in base32 -------------------------------------------------------- */

/* FIPS 180 examples (and the usual empty string), cut in two at every place of a few; the
 * labels are the FIPS digests in RFC 4648 base32 (Python's hashlib and base64 agree). */
static void test_digest_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        const char *label;
    } cases[] = {
        {"", "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"},    /* da39a3ee...: every WARC reader's */
        {"abc", "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"}, /* a9993e36... */
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "sha1:QSMD4RA4HPJG5OVOJKQ7SUJJ4XSUM4HR"}, /* 84983e44... */
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
         "mnopqrsmnopqrstnopqrstu",
         "sha1:USNSIRVAFRSFX5AZ7GK3M4EREU5AJISZ"}, /* a49b2446... */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].in);
        size_t cuts[] = {0, 1, 3, 63, 64, 65, len};
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
            size_t cut = cuts[k] < len ? cuts[k] : len;
            char label[WARCREC_DIGEST_LEN];
            assert_int_equal(warcrec_digest(cases[i].in, cut, cases[i].in + cut, len - cut, label),
                             ERR_OK);
            assert_string_equal(label, cases[i].label);
        }
    }
    /* A million 'a's (FIPS 180-2 appendix A.3: 34aa973c...). */
    char *a = malloc(1000000);
    assert_non_null(a);
    memset(a, 'a', 1000000);
    char label[WARCREC_DIGEST_LEN];
    assert_int_equal(warcrec_digest(a, 4096 + 7, a + 4096 + 7, 1000000 - 4096 - 7, label), ERR_OK);
    assert_string_equal(label, "sha1:GSVJOPGUYTNKJ5Q65MV5XLJHGFSTIALP");
    free(a);
    /* Nothing at all, NULL pointers with it. */
    assert_int_equal(warcrec_digest(NULL, 0, NULL, 0, label), ERR_OK);
    assert_string_equal(label, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
}

/* ---- the archived HTTP head ------------------------------------------------------------ */

static char *http_head(const char *head, uint64_t body_len, int *decoded)
{
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(warcrec_http_head(head, strlen(head), body_len, &b, decoded), ERR_OK);
    return buf_detach(&b);
}

static void test_http_head(void **state)
{
    (void)state;
    int decoded;
    const char *plain = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n";
    char *h = http_head(plain, 5, &decoded);
    assert_string_equal(h, plain);
    assert_int_equal(decoded, 0);
    free(h);

    h = http_head("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 31\r\n"
                  "X-A: b\r\n\r\n",
                  1000, &decoded);
    assert_string_equal(h, "HTTP/1.1 200 OK\r\nX-Sitescout-Decoded-Content-Encoding: gzip\r\n"
                           "X-Sitescout-Decoded-Content-Length: 31\r\nX-A: b\r\n"
                           "Content-Length: 1000\r\n\r\n");
    assert_int_equal(decoded, 1);
    free(h);

    h = http_head("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n", 7, &decoded);
    assert_string_equal(h, "HTTP/1.1 200 OK\nX-Sitescout-Decoded-Transfer-Encoding: chunked\n"
                           "Content-Length: 7\r\n\r\n");
    assert_int_equal(decoded, 1);
    free(h);

    /* identity is no encoding: kept as it came. */
    const char *id = "HTTP/1.1 404 Not Found\r\nContent-Encoding: identity\r\n\r\n";
    h = http_head(id, 0, &decoded);
    assert_string_equal(h, id);
    assert_int_equal(decoded, 0);
    free(h);
}

/* ---- the writer --------------------------------------------------------------------------- */

static char tmpdir[] = "/tmp/test_warcwrite_XXXXXX";

static int setup_dir(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd);
}

/* A fresh subdirectory of tmpdir, for one test. */
static const char *subdir(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    assert_int_equal(mkdir(p, 0755), 0);
    return p;
}

static int exists(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

static const char *const page_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";

static enum err write_page(struct warcwrite *w, const char *url, const char *body)
{
    static const char req[] = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
    struct warcwrite_exchange x = {.url = url,
                                   .ip = "192.0.2.7",
                                   .when = 1764085200, /* 2025-11-25T15:40:00Z */
                                   .request = req,
                                   .request_len = sizeof req - 1,
                                   .head = page_head,
                                   .head_len = strlen(page_head),
                                   .body = body,
                                   .body_len = strlen(body)};
    return warcwrite_exchange(w, &x);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct buf b;
    buf_init(&b, 0);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        assert_int_equal(buf_append(&b, tmp, n), ERR_OK);
    fclose(f);
    *len = b.len;
    return buf_detach(&b);
}

/* Inflate the gzip members of data one by one: each a whole record; returns how many. */
static size_t members(const char *data, size_t len, char **records, size_t max)
{
    size_t count = 0, off = 0;
    while (off < len) {
        z_stream z;
        memset(&z, 0, sizeof z);
        assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
        struct buf out;
        buf_init(&out, 0);
        z.next_in = (Bytef *)(uintptr_t)(data + off);
        z.avail_in = (uInt)(len - off);
        int rc;
        do {
            char tmp[8192];
            z.next_out = (Bytef *)tmp;
            z.avail_out = sizeof tmp;
            rc = inflate(&z, Z_NO_FLUSH);
            assert_true(rc == Z_OK || rc == Z_STREAM_END);
            assert_int_equal(buf_append(&out, tmp, sizeof tmp - z.avail_out), ERR_OK);
        } while (rc != Z_STREAM_END);
        off += (size_t)(len - off) - z.avail_in;
        inflateEnd(&z);
        assert_true(count < max);
        records[count++] = buf_detach(&out);
    }
    return count;
}

/* The value of header field name in a record, copied into out (or "" if absent). */
static const char *field(const char *rec, const char *name, char *out, size_t cap)
{
    const char *end = strstr(rec, "\r\n\r\n");
    size_t n = strlen(name);
    out[0] = '\0';
    for (const char *p = rec; p && p < end; p = strstr(p, "\r\n") + 2) {
        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 2, *e = strstr(v, "\r\n");
            snprintf(out, cap, "%.*s", (int)(e - v), v);
            return out;
        }
    }
    return out;
}

static void test_records(void **state)
{
    (void)state;
    const char *dir = subdir("records");
    struct warcwrite_config c = {.dir = dir, .prefix = "t", .is_part_of = "job 1"};
    struct warcwrite *w;
    assert_int_equal(warcwrite_new(&c, &w), ERR_OK);
    assert_int_equal(write_page(w, "http://a.test/", "<p>hello</p>"), ERR_OK);
    assert_int_equal(write_page(w, "http://a.test/empty", ""), ERR_OK);
    /* A failed fetch: a request went out, no response came. */
    static const char req[] = "GET /x HTTP/1.1\r\n\r\n";
    struct warcwrite_exchange failed = {
        .url = "http://a.test/x", .when = 1, .request = req, .request_len = sizeof req - 1};
    assert_int_equal(warcwrite_exchange(w, &failed), ERR_OK);
    /* While the writer lives the file is NAME.open. */
    warcwrite_flush(w);
    assert_true(exists(dir, "t-00000.warc.gz.open"));
    assert_false(exists(dir, "t-00000.warc.gz"));
    struct warcwrite_stats st;
    warcwrite_stats(w, &st);
    assert_int_equal(st.files, 1);
    assert_int_equal(st.requests, 3);
    assert_int_equal(st.responses, 2);
    warcwrite_unref(w);
    assert_false(exists(dir, "t-00000.warc.gz.open"));
    assert_true(exists(dir, "t-00000.warc.gz"));

    char path[512];
    snprintf(path, sizeof path, "%s/t-00000.warc.gz", dir);
    size_t len;
    char *data = slurp(path, &len);
    assert_int_equal((unsigned char)data[0], 0x1f); /* gzip */
    char *recs[16];
    size_t n = members(data, len, recs, 16);
    assert_int_equal(n, 6); /* warcinfo, 2 x (request, response), one request */
    char v[256], v2[256];
    for (size_t i = 0; i < n; i++) {
        assert_memory_equal(recs[i], "WARC/1.1\r\n", 10);
        /* every record ends with its two CRLFs, inside its own member */
        assert_string_equal(recs[i] + strlen(recs[i]) - 4, "\r\n\r\n");
        assert_int_equal(strlen(field(recs[i], "WARC-Record-ID", v, sizeof v)), 47);
    }
    assert_string_equal(field(recs[0], "WARC-Type", v, sizeof v), "warcinfo");
    assert_string_equal(field(recs[0], "WARC-Filename", v, sizeof v), "t-00000.warc.gz");
    assert_non_null(strstr(recs[0], "isPartOf: job 1\r\n"));
    assert_string_equal(field(recs[1], "WARC-Type", v, sizeof v), "request");
    assert_string_equal(field(recs[2], "WARC-Type", v, sizeof v), "response");
    assert_string_equal(field(recs[2], "WARC-Date", v, sizeof v), "2025-11-25T15:40:00Z");
    assert_string_equal(field(recs[2], "WARC-Target-URI", v, sizeof v), "http://a.test/");
    assert_string_equal(field(recs[2], "WARC-IP-Address", v, sizeof v), "192.0.2.7");
    assert_string_equal(field(recs[2], "Content-Type", v, sizeof v),
                        "application/http;msgtype=response");
    assert_string_equal(field(recs[1], "Content-Type", v, sizeof v),
                        "application/http;msgtype=request");
    /* request and response name each other */
    assert_string_equal(field(recs[1], "WARC-Concurrent-To", v, sizeof v),
                        field(recs[2], "WARC-Record-ID", v2, sizeof v2));
    assert_string_equal(field(recs[2], "WARC-Concurrent-To", v, sizeof v),
                        field(recs[1], "WARC-Record-ID", v2, sizeof v2));
    /* digests: the payload is the body, the block the head and the body */
    char label[WARCREC_DIGEST_LEN];
    assert_int_equal(warcrec_digest("<p>hello</p>", 12, NULL, 0, label), ERR_OK);
    assert_string_equal(field(recs[2], "WARC-Payload-Digest", v, sizeof v), label);
    char block[256];
    snprintf(block, sizeof block, "%s<p>hello</p>", page_head);
    assert_int_equal(warcrec_digest(block, strlen(block), NULL, 0, label), ERR_OK);
    assert_string_equal(field(recs[2], "WARC-Block-Digest", v, sizeof v), label);
    assert_string_equal(field(recs[4], "WARC-Payload-Digest", v, sizeof v),
                        "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"); /* the empty body */
    /* the failed fetch: a request alone, naming no response */
    assert_string_equal(field(recs[5], "WARC-Type", v, sizeof v), "request");
    assert_string_equal(field(recs[5], "WARC-Concurrent-To", v, sizeof v), "");
    /* the block is Content-Length long */
    const char *body = strstr(recs[2], "\r\n\r\n") + 4;
    assert_int_equal(strtoul(field(recs[2], "Content-Length", v, sizeof v), NULL, 10),
                     strlen(block));
    assert_memory_equal(body, block, strlen(block));
    for (size_t i = 0; i < n; i++)
        free(recs[i]);
    free(data);

    /* The replay's reader indexes the two responses and gives their blocks back. */
    struct warc_archive *a = warc_archive_new();
    assert_int_equal(warc_archive_add(a, path), ERR_OK);
    assert_int_equal(warc_archive_count(a), 2);
    const char *url = "http://a.test/";
    const struct warc_record *r = warc_archive_find(a, url, strlen(url));
    assert_non_null(r);
    assert_int_equal(r->length, strlen(block));
    struct warcreader *rd = warcreader_new();
    assert_int_equal(warcreader_start(rd, a, r), ERR_OK);
    char got[256];
    size_t have = 0, k;
    do {
        assert_int_equal(warcreader_read(rd, got + have, sizeof got - have, &k), ERR_OK);
        have += k;
    } while (k);
    assert_int_equal(have, strlen(block));
    assert_memory_equal(got, block, have);
    warcreader_free(rd);
    warc_archive_free(a);
}

/* Past max_size the file is closed (renamed) after the exchange; the next opens a new one. */
static void test_rotation(void **state)
{
    (void)state;
    const char *dir = subdir("rotation");
    struct warcwrite_config c = {.dir = dir, .prefix = "r", .max_size = 1500};
    struct warcwrite *w;
    assert_int_equal(warcwrite_new(&c, &w), ERR_OK);
    char body[2048];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof body - 1; i++) { /* random letters: about 1.2 KB gzipped */
        x = x * 1103515245u + 12345u;
        body[i] = (char)('a' + (x >> 16) % 26);
    }
    body[sizeof body - 1] = '\0';
    assert_int_equal(write_page(w, "http://a.test/1", "small"), ERR_OK);
    warcwrite_flush(w);
    struct warcwrite_stats st;
    warcwrite_stats(w, &st);
    assert_true(st.bytes < 1500);
    assert_true(exists(dir, "r-00000.warc.gz.open")); /* under max_size yet */
    assert_int_equal(write_page(w, "http://a.test/2", body), ERR_OK);
    warcwrite_flush(w);
    assert_true(exists(dir, "r-00000.warc.gz")); /* passed max_size: closed */
    assert_int_equal(write_page(w, "http://a.test/3", body), ERR_OK);
    warcwrite_flush(w);
    assert_true(exists(dir, "r-00001.warc.gz"));
    assert_false(exists(dir, "r-00002.warc.gz.open")); /* opened only when needed */
    warcwrite_stats(w, &st);
    assert_int_equal(st.files, 2);
    warcwrite_unref(w);

    /* Each file starts with its warcinfo and is readable on its own. */
    size_t counts[2] = {2, 1};
    for (unsigned seq = 0; seq < 2; seq++) {
        char path[512];
        snprintf(path, sizeof path, "%s/r-%05u.warc.gz", dir, seq);
        size_t len;
        char *data = slurp(path, &len);
        char *recs[16];
        size_t n = members(data, len, recs, 16);
        char v[64];
        assert_string_equal(field(recs[0], "WARC-Type", v, sizeof v), "warcinfo");
        assert_int_equal(n, 1 + 2 * counts[seq]);
        for (size_t i = 0; i < n; i++)
            free(recs[i]);
        free(data);
        struct warc_archive *a = warc_archive_new();
        assert_int_equal(warc_archive_add(a, path), ERR_OK);
        assert_int_equal(warc_archive_count(a), counts[seq]);
        warc_archive_free(a);
    }

    /* A second writer with the prefix (a resumed job) adds files, never overwrites. */
    assert_int_equal(warcwrite_new(&c, &w), ERR_OK);
    assert_int_equal(write_page(w, "http://a.test/4", "x"), ERR_OK);
    warcwrite_unref(w);
    assert_true(exists(dir, "r-00002.warc.gz"));
}

/* A reference held elsewhere (a transfer still running) keeps the file open. */
static void test_references(void **state)
{
    (void)state;
    const char *dir = subdir("refs");
    struct warcwrite_config c = {.dir = dir, .prefix = "f"};
    struct warcwrite *w;
    assert_int_equal(warcwrite_new(&c, &w), ERR_OK);
    warcwrite_ref(w);
    assert_int_equal(write_page(w, "http://a.test/", "x"), ERR_OK);
    warcwrite_unref(w);
    warcwrite_flush(w);
    assert_true(exists(dir, "f-00000.warc.gz.open"));
    assert_int_equal(write_page(w, "http://a.test/late", "y"), ERR_OK);
    warcwrite_unref(w);
    assert_true(exists(dir, "f-00000.warc.gz"));
    struct warcwrite_config bad = {.dir = dir, .prefix = "../x"};
    assert_int_equal(warcwrite_new(&bad, &w), ERR_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_vectors), cmocka_unit_test(test_http_head),
        cmocka_unit_test(test_records),        cmocka_unit_test(test_rotation),
        cmocka_unit_test(test_references),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
