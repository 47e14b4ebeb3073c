/* Fault injection for the replay server: which faults one request gets, reproducibly. */
#ifndef SITESCOUT_REPLAY_FAULTS_H
#define SITESCOUT_REPLAY_FAULTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Faults are drawn from (seed, URL, how many times this URL was asked for before), so
 * a run is reproducible whatever the order of concurrent requests and a retry draws
 * anew. struct faults keeps the rates and the per-URL request counts (a table of up to
 * about a million URLs; later new URLs count as first requests). Embedded by its owner;
 * faults_release frees the table.
 *
 * Redirect loops are the exception: whether a URL loops depends on (seed, URL) only,
 * so it loops on every request, as a misconfigured site does.
 */
struct faults_count;

/* The rates of each kind, in [0, 1] (latency: a mean in ms, >= 0; 0 = none). */
struct faults_rates {
    double latency_ms, error_rate, reset_rate, slow_rate, stall_rate, loop_rate;
};

struct faults {
    uint64_t seed;
    struct faults_rates r;
    struct faults_count *counts; /* open addressing by URL hash */
    size_t cap, n;
};

/* What one request gets. */
struct faults_draw {
    double delay_ms; /* before the first byte */
    int error;       /* 0, 500 or 503: answer this instead */
    int reset;       /* reset the connection halfway through the body */
    int slow;        /* dribble the body out */
    int stall;       /* go silent halfway through the body for a while */
};

/* Set the rates (already checked as above); no table yet. */
void faults_init(struct faults *f, uint64_t seed, const struct faults_rates *rates);
void faults_release(struct faults *f);

/* Draw the faults of one request for the normalised URL url[len], and count the request. */
void faults_decide(struct faults *f, const char *url, size_t len, struct faults_draw *out);

/*
 * Does url[len] answer a redirect loop? 0 if not, else its status (301 or 302), with
 * *self set to 1 when it redirects to itself, 0 when it redirects to a partner URL
 * that redirects back (a loop of two).
 */
int faults_loop(const struct faults *f, const char *url, size_t len, int *self);

#endif
