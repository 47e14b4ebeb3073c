/*
 * Trained classifiers in the `models` table: the serialised model bytes (opaque here;
 * classifier/pagecls.h makes and reads them) with their format version, the page
 * error rate and cross-validation figures, and the parameters they were trained with.
 * The bytes travel as a bytea hex text parameter ('\x...'), so every statement stays
 * a parameterised one.
 *
 * Ownership: models_load / models_load_latest hand out a struct models_record the
 * caller frees with models_record_free.
 */
#ifndef SITESCOUT_STORE_MODELS_H
#define SITESCOUT_STORE_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;

#define MODELS_MAX_BYTES ((size_t)256 << 20) /* largest model we store or load */

/* What a model was trained on: a job's pages, or its training websites' homepages; or
 * the key phrases of strategy relevance_degree (classifier/keyphrases.h) or the weight
 * table of strategy weight_table (classifier/weighttable.h), as text. */
#define MODELS_PAGES       "pages"
#define MODELS_HOMEPAGES   "homepages"
#define MODELS_KEYPHRASES  "keyphrases"
#define MODELS_WEIGHTTABLE "weighttable"
/* Strategy context_graph's layers and layer classifier (classifier/ctxgraph.h). */
#define MODELS_CTXGRAPH "ctxgraph"
/* The crawl's model (classifier/nbem.h, job/jobjudge.h): one row per judging of a job. */
#define MODELS_CRAWL "crawl"

struct models_record {
    int64_t id;
    int64_t job_id; /* 0 when the model belongs to no job */
    int format_version;
    char kind[16]; /* MODELS_PAGES, MODELS_HOMEPAGES, MODELS_KEYPHRASES, ... */
    double p_err;
    double page_accuracy; /* NaN when not known */
    char *cv;             /* JSON text, or NULL */
    char *params;         /* JSON text, or NULL */
    unsigned char *data;  /* the model bytes */
    size_t len;
    char *created_at; /* timestamptz as text */
};

/*
 * Insert a model of a kind (MODELS_PAGES, MODELS_HOMEPAGES, MODELS_KEYPHRASES,
 * MODELS_WEIGHTTABLE, MODELS_CTXGRAPH). job_id <= 0 stores
 * NULL; page_accuracy NaN stores NULL; cv_json and params_json are JSON texts (checked by
 * PostgreSQL) or NULL. *id_out gets the new id.
 */
enum err models_save(struct store *s, int64_t job_id, const char *kind, int format_version,
                     double p_err, double page_accuracy, const char *cv_json,
                     const char *params_json, const void *data, size_t len,
                     int64_t *id_out) WARN_UNUSED;

/* The model with this id; ERR_NOTFOUND if there is none. */
enum err models_load(struct store *s, int64_t id, struct models_record **out) WARN_UNUSED;

/* Forget job_id's models: training starts over, so one model stands for one training. */
enum err models_delete_job(struct store *s, int64_t job_id) WARN_UNUSED;

/* The newest model of a kind of a job; ERR_NOTFOUND if it has none. */
enum err models_load_latest(struct store *s, int64_t job_id, const char *kind,
                            struct models_record **out) WARN_UNUSED;

void models_record_free(struct models_record *m);

#endif
