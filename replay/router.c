/* Routing one request of the replay web to its answer, with the faults drawn for its URL. */
#include "replay/router.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define ROUTER_SLOW_STEPS       20 /* a slow body goes out in this many pieces */
#define ROUTER_SLOW_MS_DEFAULT  2000
#define ROUTER_STALL_MS_DEFAULT 60000
/* What a loop of two adds to a URL's query to name its partner, which redirects back. */
#define ROUTER_LOOP_MARK     "replay-loop=1"
#define ROUTER_LOOP_MARK_LEN (sizeof ROUTER_LOOP_MARK - 1)

void router_init(struct router *rt, const struct replay_config *cfg, const struct warc_archive *arc)
{
    rt->cfg = cfg;
    rt->arc = arc;
    const struct faults_rates rates = {.latency_ms = cfg->latency_ms,
                                       .error_rate = cfg->error_rate,
                                       .reset_rate = cfg->reset_rate,
                                       .slow_rate = cfg->slow_rate,
                                       .stall_rate = cfg->stall_rate,
                                       .loop_rate = cfg->loop_rate};
    faults_init(&rt->faults, cfg->seed, &rates);
}

void router_release(struct router *rt)
{
    faults_release(&rt->faults);
}

static int router_in(const char *const *hosts, size_t n, const char *host, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(hosts[i]) == len && strncasecmp(hosts[i], host, len) == 0)
            return 1;
    return 0;
}

/* Which synthetic host this authority is, or 0. */
static enum response_synth router_synth_kind(const struct router *rt, const char *host, size_t len)
{
    const struct replay_config *c = rt->cfg;
    if (router_in(c->trap_hosts, c->ntrap, host, len))
        return RESPONSE_SYNTH_TRAP;
    if (router_in(c->huge_hosts, c->nhuge, host, len))
        return RESPONSE_SYNTH_HUGE;
    if (router_in(c->junk_hosts, c->njunk, host, len))
        return RESPONSE_SYNTH_JUNK;
    return 0;
}

/*
 * Put the normalised request URL into r->url; *ulen, *hoff, *hlen locate it and its
 * authority. Nonzero (with the error page set up) if the request has no usable URL.
 */
static int router_url(struct response *r, const struct httpmsg_request *req, int head_only,
                      size_t *ulen, size_t *hoff, size_t *hlen)
{
    /* The URL: absolute-form as a proxy gets it, or origin-form plus Host. */
    char raw[WARCURL_MAX];
    const char *t = req->target;
    size_t tl = req->target_len;
    int n;
    if (tl && t[0] == '/') {
        if (!req->host) {
            snprintf(r->url, sizeof r->url, "%.*s", (int)tl, t);
            response_page(r, 400, NULL, "An origin-form request needs a Host header.", head_only);
            return -1;
        }
        n = snprintf(raw, sizeof raw, "http://%.*s%.*s", (int)req->host_len, req->host, (int)tl, t);
    } else {
        n = snprintf(raw, sizeof raw, "%.*s", (int)tl, t);
    }
    snprintf(r->url, sizeof r->url, "%s", raw);
    if (n < 0 || (size_t)n >= sizeof raw ||
        warcurl_normalize(raw, (size_t)n, r->url, sizeof r->url, ulen, hoff, hlen) != ERR_OK) {
        if (strcasecmp(r->method, "CONNECT") == 0)
            response_page(r, 501, "Allow: GET, HEAD\r\n",
                          "CONNECT is not supported: the replay web speaks plain HTTP only.", 0);
        else
            response_page(r, 400, NULL, "The request target is not an http URL.", head_only);
        return -1;
    }
    return 0;
}

/* The archived record for the URL in r->url[ulen], or NULL. */
static const struct warc_record *router_record(const struct router *rt, const struct response *r,
                                               size_t ulen)
{
    const struct warc_record *rec = warc_archive_find(rt->arc, r->url, ulen);
    if (!rec && strncmp(r->url, "http://", 7) == 0 && ulen + 2 < WARCURL_MAX) {
        /* An archive of an https site still answers its plain http URLs. */
        char https[WARCURL_MAX];
        snprintf(https, sizeof https, "https://%s", r->url + 7);
        rec = warc_archive_find(rt->arc, https, ulen + 1);
    }
    return rec;
}

/*
 * The partner of a loop of two: url[ulen] with ROUTER_LOOP_MARK added to its query, into
 * out[cap]. 0 if it does not fit (the loop is then a self-redirect).
 */
static int router_loop_partner(const char *url, size_t ulen, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%.*s%c%s", (int)ulen, url, memchr(url, '?', ulen) ? '&' : '?',
                     ROUTER_LOOP_MARK);
    return n > 0 && (size_t)n < cap;
}

/* url[ulen] is a loop's partner: the URL it redirects back to, into out[cap]; else 0. */
static int router_loop_back(const char *url, size_t ulen, char *out, size_t cap)
{
    size_t m = ROUTER_LOOP_MARK_LEN;
    if (ulen <= m + 1 || memcmp(url + ulen - m, ROUTER_LOOP_MARK, m) != 0 ||
        (url[ulen - m - 1] != '?' && url[ulen - m - 1] != '&') || ulen - m - 1 >= cap)
        return 0;
    memcpy(out, url, ulen - m - 1);
    out[ulen - m - 1] = '\0';
    return 1;
}

/*
 * Redirect loops (--redirect-loop-rate): a looping URL with content answers a
 * redirect to itself or to its partner, and a partner answers a redirect back. 1 when
 * r is set up as such a redirect.
 */
static int router_loop(const struct router *rt, struct response *r, size_t ulen, int content,
                       int head_only)
{
    char target[WARCURL_MAX];
    int self;
    if (rt->faults.r.loop_rate <= 0)
        return 0;
    if (router_loop_back(r->url, ulen, target, sizeof target)) {
        int status = faults_loop(&rt->faults, target, strlen(target), &self);
        response_loop_fault(r, status ? status : 302, target, head_only);
        return 1;
    }
    int status = content ? faults_loop(&rt->faults, r->url, ulen, &self) : 0;
    if (!status)
        return 0;
    if (self || !router_loop_partner(r->url, ulen, target, sizeof target))
        snprintf(target, sizeof target, "%.*s", (int)ulen, r->url);
    response_loop_fault(r, status, target, head_only);
    return 1;
}

/* Resets, slowness and stalls, for a response with content. */
static void router_body_faults(const struct router *rt, struct response *r,
                               const struct faults_draw *f)
{
    if (!r->body_len)
        return;
    if (f->reset)
        r->reset_at = r->body_len / 2;
    if (f->slow) {
        unsigned total = rt->cfg->slow_ms ? rt->cfg->slow_ms : ROUTER_SLOW_MS_DEFAULT;
        r->faults |= RESPONSE_FAULT_SLOW;
        r->slow_step = (r->body_len + ROUTER_SLOW_STEPS - 1) / ROUTER_SLOW_STEPS;
        r->allowance = r->slow_step;
        r->slow_interval = total / ROUTER_SLOW_STEPS ? total / ROUTER_SLOW_STEPS : 1;
    }
    if (f->stall) {
        r->stall_at = r->body_len / 2;
        r->stall_ms = rt->cfg->stall_ms ? rt->cfg->stall_ms : ROUTER_STALL_MS_DEFAULT;
    }
}

double router_answer(struct router *rt, struct response_pool *pool, struct response *r,
                     const struct httpmsg_request *req)
{
    int head_only = strcmp(r->method, "HEAD") == 0;
    size_t ulen, hoff, hlen;
    if (router_url(r, req, head_only, &ulen, &hoff, &hlen) != 0)
        return 0;
    if (strcmp(r->method, "GET") != 0 && !head_only) {
        response_page(r, 405, "Allow: GET, HEAD\r\n", "The replay web answers GET and HEAD only.",
                      0);
        return 0;
    }

    struct faults_draw f;
    faults_decide(&rt->faults, r->url, ulen, &f);
    const char *host = r->url + hoff, *path = host + hlen;
    enum response_synth kind = router_synth_kind(rt, host, hlen);
    const struct warc_record *rec = kind ? NULL : router_record(rt, r, ulen);
    int content = 0; /* a real page: resets and slowness apply */
    if (!kind && !rec && !warc_archive_has_host(rt->arc, host, hlen)) {
        response_page(r, 502,
                      "Proxy-Status: sitescout-replay; error=dns_error; rcode=\"NXDOMAIN\"\r\n",
                      "Unknown host: the replay web has no such host.", head_only);
    } else if (kind && strcmp(path, "/robots.txt") == 0) {
        response_page(r, 404, NULL, "This synthetic host has no robots.txt.", head_only);
    } else if (f.error) {
        response_error_fault(r, f.error, head_only);
    } else if (router_loop(rt, r, ulen, kind || rec, head_only)) {
        /* a redirect of a loop, set up */
    } else if (kind) {
        response_synth(r, kind, path, strlen(path), rt->cfg->seed, head_only);
        content = 1;
    } else if (!rec) {
        response_page(r, 404, NULL, "The replay web has no page at this URL.", head_only);
    } else if (response_record(pool, r, rec, head_only) == 0) {
        content = 1;
    } else {
        response_page(r, 502, NULL, "The archived record for this URL cannot be read.", head_only);
    }
    if (content)
        router_body_faults(rt, r, &f);
    return f.delay_ms;
}
