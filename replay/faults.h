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
 */
struct faults_count;

struct faults {
    uint64_t seed;
    double latency_ms; /* mean of the exponential delay; 0 = none */
    double error_rate, reset_rate, slow_rate;
    struct faults_count *counts; /* open addressing by URL hash */
    size_t cap, n;
};

/* What one request gets. */
struct faults_draw {
    double delay_ms; /* before the first byte */
    int error;       /* 0, 500 or 503: answer this instead */
    int reset;       /* reset the connection halfway through the body */
    int slow;        /* dribble the body out */
};

/* Set the rates (already checked to lie in [0, 1], latency >= 0); no table yet. */
void faults_init(struct faults *f, uint64_t seed, double latency_ms, double error_rate,
                 double reset_rate, double slow_rate);
void faults_release(struct faults *f);

/* Draw the faults of one request for the normalised URL url[len], and count the request. */
void faults_decide(struct faults *f, const char *url, size_t len, struct faults_draw *out);

#endif
