/* Unit tests for replay/warc*: URL normalisation, record headers, indexing and reading blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/buf.h"
#include "replay/warc.h"
#include "replay/warchead.h"
#include "replay/warcreader.h"
#include "replay/warcurl.h"

/* ---- helpers: WARC files written by the test ------------------------------------------ */

static char tmpdir[] = "/tmp/test_warc_XXXXXX";

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

static const char *path_of(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

/* One WARC record: header fields, then the block, then CRLF CRLF. */
static void add_record(struct buf *b, const char *type, const char *uri, const char *block,
                       size_t block_len)
{
    assert_int_equal(buf_appendf(b, "WARC/1.1\r\nWARC-Type: %s\r\n", type), ERR_OK);
    if (uri)
        assert_int_equal(buf_appendf(b, "WARC-Target-URI: %s\r\n", uri), ERR_OK);
    assert_int_equal(buf_appendf(b,
                                 "Content-Type: application/http; msgtype=response\r\n"
                                 "Content-Length: %zu\r\n\r\n",
                                 block_len),
                     ERR_OK);
    assert_int_equal(buf_append(b, block, block_len), ERR_OK);
    assert_int_equal(buf_append_str(b, "\r\n\r\n"), ERR_OK);
}

/* gzip data[len] as one member onto out. */
static void gzip_member(struct buf *out, const char *data, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, len) + 64;
    char *tmp = malloc(cap);
    assert_non_null(tmp);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)tmp;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    assert_int_equal(buf_append(out, tmp, cap - z.avail_out), ERR_OK);
    deflateEnd(&z);
    free(tmp);
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

#define HOME_BLOCK                                                                                 \
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 12\r\n\r\n<p>home</p>\n"
#define MOVED_BLOCK                                                                                \
    "HTTP/1.1 301 Moved Permanently\r\nLocation: http://example.org/new\r\n"                       \
    "Content-Length: 0\r\n\r\n"
#define QUERY_BLOCK "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nq=1"
#define DUP_BLOCK   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nlater"

/* Byte i of the big body: letters with little structure, so that it compresses poorly. */
static char big_byte(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    return (char)('a' + (x >> 16) % 26);
}

/* The records of the little test archive, one buffer each (the last holds two records). */
static void test_records(struct buf rec[6], size_t big_len)
{
    for (int i = 0; i < 6; i++)
        buf_init(&rec[i], 0);
    add_record(&rec[0], "warcinfo", NULL, "software: test\r\n", 16);
    add_record(&rec[1], "response", "http://Example.ORG:80/", HOME_BLOCK, strlen(HOME_BLOCK));
    add_record(&rec[2], "request", "http://example.org/", "GET / HTTP/1.1\r\n\r\n", 18);
    add_record(&rec[3], "response", "<http://example.org/old>", MOVED_BLOCK, strlen(MOVED_BLOCK));
    add_record(&rec[4], "response", "http://example.org/index.php?page=a#frag", QUERY_BLOCK,
               strlen(QUERY_BLOCK));
    /* A large block (several inflate windows) and a later duplicate of the homepage. */
    struct buf big;
    buf_init(&big, 0);
    assert_int_equal(buf_appendf(&big, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", big_len),
                     ERR_OK);
    for (size_t i = 0; i < big_len; i++)
        assert_int_equal(buf_append_char(&big, big_byte(i)), ERR_OK);
    add_record(&rec[5], "response", "https://www.example.com/big", big.data, big.len);
    add_record(&rec[5], "response", "http://example.org/", DUP_BLOCK, strlen(DUP_BLOCK));
    buf_release(&big);
}

enum layout { PLAIN, GZ_PER_RECORD, GZ_ONE_MEMBER };

static const char *write_archive(const char *name, enum layout how, size_t big_len)
{
    struct buf rec[6], out;
    test_records(rec, big_len);
    buf_init(&out, 0);
    if (how == GZ_ONE_MEMBER) {
        struct buf all;
        buf_init(&all, 0);
        for (int i = 0; i < 6; i++)
            assert_int_equal(buf_append(&all, rec[i].data, rec[i].len), ERR_OK);
        gzip_member(&out, all.data, all.len);
        buf_release(&all);
    } else {
        for (int i = 0; i < 6; i++) {
            if (how == PLAIN)
                assert_int_equal(buf_append(&out, rec[i].data, rec[i].len), ERR_OK);
            else
                gzip_member(&out, rec[i].data, rec[i].len);
        }
    }
    const char *p = path_of(name);
    write_file(p, out.data, out.len);
    for (int i = 0; i < 6; i++)
        buf_release(&rec[i]);
    buf_release(&out);
    return p;
}

/* Read a record's whole block through a reader, in pieces of `step` bytes. */
static char *read_block(const struct warc_archive *a, const struct warc_record *r, size_t step,
                        size_t *len)
{
    struct warcreader *rd = warcreader_new();
    assert_non_null(rd);
    assert_int_equal(warcreader_start(rd, a, r), ERR_OK);
    struct buf b;
    buf_init(&b, 0);
    char *tmp = malloc(step);
    for (;;) {
        size_t got;
        assert_int_equal(warcreader_read(rd, tmp, step, &got), ERR_OK);
        if (!got)
            break;
        assert_int_equal(buf_append(&b, tmp, got), ERR_OK);
    }
    free(tmp);
    warcreader_free(rd);
    *len = b.len;
    return buf_detach(&b);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_url_normalize(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out; /* out NULL: rejected */
    } cases[] = {
        {"http://example.org/", "http://example.org/"},
        {"HTTP://Example.ORG", "http://example.org/"},
        {"http://example.org:80/a/B?x=Y", "http://example.org/a/B?x=Y"},
        {"http://example.org:8080/", "http://example.org:8080/"},
        {"http://example.org:0080/", "http://example.org/"},
        {"https://example.org:443/p", "https://example.org/p"},
        {"https://example.org:80/p", "https://example.org:80/p"},
        {"http://example.org?q=1", "http://example.org/?q=1"},
        {"http://example.org/p#frag", "http://example.org/p"},
        {"http://user:pw@Example.org/p", "http://example.org/p"},
        {"  http://example.org/p \r\n", "http://example.org/p"},
        {"http://[::1]:8080/x", "http://[::1]:8080/x"},
        {"http://example.org:/p", "http://example.org/p"},
        {"http://example.org/%7Efred/a%20b", "http://example.org/%7Efred/a%20b"},
        {"http://example.org/%7efred/a%2fb?x=%e9", "http://example.org/%7Efred/a%2Fb?x=%E9"},
        {"http://example.org/100%/%zz/%a", "http://example.org/100%/%zz/%a"},
        {"ftp://example.org/", NULL},
        {"example.org/", NULL},
        {"http:///path", NULL},
        {"http://example.org:99999/", NULL},
        {"http://example.org:8a/", NULL},
        {"http://exa mple.org/", NULL},
        {"http://[::1/", NULL},
        {"http://example.org/a b", NULL},
        {"http://example.org/a\tb", NULL},
        {"http://example.org/#frag with space", "http://example.org/"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        size_t len, hoff, hlen;
        enum err e = warcurl_normalize(cases[i].in, strlen(cases[i].in), out, sizeof out, &len,
                                       &hoff, &hlen);
        if (!cases[i].out) {
            assert_int_not_equal(e, ERR_OK);
            continue;
        }
        assert_int_equal(e, ERR_OK);
        assert_string_equal(out, cases[i].out);
        assert_int_equal(len, strlen(out));
        assert_int_equal(out[hoff + hlen], '/');
    }
    char small[16];
    size_t len;
    assert_int_equal(warcurl_normalize("http://example.org/long/path", 28, small, sizeof small,
                                       &len, NULL, NULL),
                     ERR_TOOBIG);
}

static void test_header_parse(void **state)
{
    (void)state;
    const char *ok = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://a.b/>\r\n"
                     "content-length:  42 \r\n\r\nBODY";
    size_t hl = warchead_end(ok, strlen(ok));
    assert_int_equal(hl, strlen(ok) - 4);
    struct warchead h;
    assert_int_equal(warchead_parse(ok, hl, &h), ERR_OK);
    assert_true(h.is_response);
    assert_int_equal(h.content_length, 42);
    assert_int_equal(h.uri_len, 11);
    assert_memory_equal(h.uri, "http://a.b/", 11);

    const char *lf = "WARC/1.1\nWARC-Type: request\nContent-Length: 0\n\n";
    hl = warchead_end(lf, strlen(lf));
    assert_int_equal(hl, strlen(lf));
    assert_int_equal(warchead_parse(lf, hl, &h), ERR_OK);
    assert_false(h.is_response);
    assert_null(h.uri);

    assert_int_equal(warchead_end("WARC/1.1\r\nA: b\r\n", 16), 0);
    static const char *const bad[] = {
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n",
        "WARC/1.1\r\nWARC-Type: response\r\n\r\n", /* no length */
        "WARC/1.1\r\nContent-Length: 12x\r\n\r\n", /* bad length */
        "WARC/1.1\r\nContent-Length: \r\n\r\n",    /* empty length */
        "WARC/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "WARC/1.1\r\nno colon here\r\nContent-Length: 1\r\n\r\n",
        "WARC/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hl = warchead_end(bad[i], strlen(bad[i]));
        assert_int_not_equal(hl, 0);
        assert_int_equal(warchead_parse(bad[i], hl, &h), ERR_PARSE);
    }
}

static void check_archive(const char *path, size_t big_len)
{
    struct warc_archive *a = warc_archive_new();
    assert_int_equal(warc_archive_add(a, path), ERR_OK);
    assert_int_equal(warc_archive_count(a), 4); /* warcinfo, request and duplicate not indexed */
    assert_int_equal(warc_archive_duplicates(a), 1);
    assert_int_equal(warc_archive_hosts(a), 2);
    assert_true(warc_archive_has_host(a, "example.org", 11));
    assert_true(warc_archive_has_host(a, "www.example.com", 15));
    assert_false(warc_archive_has_host(a, "example.com", 11));

    const struct warc_record *r = warc_archive_find(a, "http://example.org/", 19);
    assert_non_null(r);
    assert_string_equal(warc_record_url(a, r), "http://example.org/");
    assert_string_equal(warc_archive_path(a, r->file), path);
    size_t len;
    char *block = read_block(a, r, 7, &len); /* the first record wins, not DUP_BLOCK */
    assert_int_equal(len, strlen(HOME_BLOCK));
    assert_memory_equal(block, HOME_BLOCK, len);
    free(block);

    r = warc_archive_find(a, "http://example.org/old", 22);
    assert_non_null(r);
    block = read_block(a, r, 4096, &len);
    assert_int_equal(len, strlen(MOVED_BLOCK));
    assert_memory_equal(block, MOVED_BLOCK, len);
    free(block);

    const char *q = "http://example.org/index.php?page=a";
    assert_non_null(warc_archive_find(a, q, strlen(q)));
    assert_null(warc_archive_find(a, "http://example.org/index.php?page=b", strlen(q)));
    assert_null(warc_archive_find(a, "http://example.org/index.php", 28));

    r = warc_archive_find(a, "https://www.example.com/big", 27);
    assert_non_null(r);
    block = read_block(a, r, 65536, &len);
    const char *body = strstr(block, "\r\n\r\n") + 4;
    assert_int_equal(len - (size_t)(body - block), big_len);
    for (size_t i = 0; i < big_len; i++)
        if (body[i] != big_byte(i))
            fail_msg("byte %zu of the big body differs", i);
    free(block);

    /* All records through one reused reader, interleaved with a new one. */
    struct warcreader *rd = warcreader_new();
    for (size_t i = 0; i < warc_archive_count(a); i++) {
        char tmp[64];
        size_t got;
        assert_int_equal(warcreader_start(rd, a, warc_archive_record(a, i)), ERR_OK);
        assert_int_equal(warcreader_read(rd, tmp, sizeof tmp, &got), ERR_OK);
        assert_true(got > 0);
        assert_memory_equal(tmp, "HTTP/1.1 ", 9);
    }
    warcreader_free(rd);
    warc_archive_free(a);
}

static void test_plain(void **state)
{
    (void)state;
    check_archive(write_archive("plain.warc", PLAIN, 300000), 300000);
}

static void test_gzip_per_record(void **state)
{
    (void)state;
    check_archive(write_archive("per.warc.gz", GZ_PER_RECORD, 300000), 300000);
}

static void test_gzip_one_member(void **state)
{
    (void)state;
    check_archive(write_archive("one.warc.gz", GZ_ONE_MEMBER, 300000), 300000);
}

static void test_several_files(void **state)
{
    (void)state;
    struct warc_archive *a = warc_archive_new();
    assert_int_equal(warc_archive_add(a, write_archive("a.warc", PLAIN, 10)), ERR_OK);
    assert_int_equal(warc_archive_add(a, write_archive("b.warc.gz", GZ_PER_RECORD, 10)), ERR_OK);
    assert_int_equal(warc_archive_count(a), 4);
    assert_int_equal(warc_archive_duplicates(a), 6);
    assert_int_equal(warc_archive_find(a, "http://example.org/", 19)->file, 0);
    warc_archive_free(a);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *d = malloc(*len + 1);
    assert_int_equal(fread(d, 1, *len, f), *len);
    fclose(f);
    return d;
}

static void test_truncated_last_record(void **state)
{
    (void)state;
    const char *layouts[] = {"t.warc", "t.warc.gz"};
    for (int k = 0; k < 2; k++) {
        size_t len;
        char *d = slurp(write_archive(layouts[k], k ? GZ_PER_RECORD : PLAIN, 300000), &len);
        /* Cut inside the big record's block: it and the record after it disappear. */
        const char *p = path_of("cut.warc");
        write_file(p, d, len - (k ? 2000 : 150000));
        free(d);
        struct warc_archive *a = warc_archive_new();
        assert_int_equal(warc_archive_add(a, p), ERR_OK);
        assert_int_equal(warc_archive_count(a), 3);
        assert_null(warc_archive_find(a, "https://www.example.com/big", 27));
        assert_non_null(warc_archive_find(a, "http://example.org/old", 22));
        assert_true(warc_archive_has_host(a, "example.org", 11));
        assert_false(warc_archive_has_host(a, "www.example.com", 15));
        warc_archive_free(a);
    }
}

static void test_corrupt(void **state)
{
    (void)state;
    /* Plain: garbage where the third record starts; the error names its offset. */
    struct buf rec[6], out;
    test_records(rec, 100);
    buf_init(&out, 0);
    for (int i = 0; i < 6; i++) {
        if (i == 3)
            assert_int_equal(buf_append_str(&out, "GARBAGE\r\n"), ERR_OK);
        assert_int_equal(buf_append(&out, rec[i].data, rec[i].len), ERR_OK);
    }
    size_t off = rec[0].len + rec[1].len + rec[2].len;
    const char *p = path_of("bad.warc");
    write_file(p, out.data, out.len);
    struct warc_archive *a = warc_archive_new();
    assert_int_equal(warc_archive_add(a, p), ERR_PARSE);
    char want[300];
    snprintf(want, sizeof want, "%s: offset %zu: not a WARC record", p, off);
    assert_string_equal(err_msg(), want);
    assert_int_equal(warc_archive_count(a), 0);

    /* gzip: a member with damaged deflate data; the error names the member's offset. */
    buf_reset(&out);
    size_t member = 0;
    for (int i = 0; i < 6; i++) {
        if (i == 4)
            member = out.len;
        gzip_member(&out, rec[i].data, rec[i].len);
    }
    for (size_t i = member + 20; i < member + 40; i++)
        out.data[i] = (char)0xff;
    p = path_of("bad.warc.gz");
    write_file(p, out.data, out.len);
    assert_int_equal(warc_archive_add(a, p), ERR_PARSE);
    snprintf(want, sizeof want, "%s: offset %zu (gzip member): corrupt gzip data", p, member);
    assert_memory_equal(err_msg(), want, strlen(want));

    /* A bad header field: the message says what is wrong. */
    buf_reset(&out);
    assert_int_equal(buf_append(&out, rec[0].data, rec[0].len), ERR_OK);
    assert_int_equal(buf_append_str(&out, "WARC/1.1\r\nWARC-Type: response\r\n\r\n"), ERR_OK);
    p = path_of("nolen.warc");
    write_file(p, out.data, out.len);
    assert_int_equal(warc_archive_add(a, p), ERR_PARSE);
    snprintf(want, sizeof want, "%s: offset %zu: record header has no Content-Length", p,
             rec[0].len);
    assert_string_equal(err_msg(), want);

    /* The archive is still usable after failed files. */
    assert_int_equal(warc_archive_add(a, write_archive("good.warc", PLAIN, 10)), ERR_OK);
    assert_int_equal(warc_archive_count(a), 4);
    assert_non_null(warc_archive_find(a, "http://example.org/", 19));
    assert_int_equal(warc_archive_add(a, path_of("does-not-exist")), ERR_IO);
    warc_archive_free(a);
    for (int i = 0; i < 6; i++)
        buf_release(&rec[i]);
    buf_release(&out);
}

static void test_empty_and_read_after_truncation(void **state)
{
    (void)state;
    const char *p = path_of("empty.warc");
    write_file(p, "", 0);
    struct warc_archive *a = warc_archive_new();
    assert_int_equal(warc_archive_add(a, p), ERR_OK);
    assert_int_equal(warc_archive_count(a), 0);
    assert_null(warc_archive_find(a, "http://example.org/", 19));
    assert_false(warc_archive_has_host(a, "example.org", 11));

    /* A file cut short after indexing: reading fails cleanly instead of crashing. */
    p = write_archive("shrink.warc.gz", GZ_PER_RECORD, 300000);
    assert_int_equal(warc_archive_add(a, p), ERR_OK);
    const struct warc_record *r = warc_archive_find(a, "https://www.example.com/big", 27);
    assert_non_null(r);
    assert_int_equal(truncate(p, (off_t)(r->offset + 100)), 0);
    struct warcreader *rd = warcreader_new();
    assert_int_equal(warcreader_start(rd, a, r), ERR_OK);
    char tmp[4096];
    size_t got;
    enum err e;
    while ((e = warcreader_read(rd, tmp, sizeof tmp, &got)) == ERR_OK && got)
        ;
    assert_int_equal(e, ERR_IO);
    assert_non_null(strstr(err_msg(), "unexpected end of file"));
    warcreader_free(rd);
    warc_archive_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_normalize),
        cmocka_unit_test(test_header_parse),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_gzip_per_record),
        cmocka_unit_test(test_gzip_one_member),
        cmocka_unit_test(test_several_files),
        cmocka_unit_test(test_truncated_last_record),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_empty_and_read_after_truncation),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
