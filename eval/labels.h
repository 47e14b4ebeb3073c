/*
 * Ground-truth labels of a test web (NAME.sites.tsv, ../shared/webs/README.md): one
 * line per website with its host, its topic and its role for each target topic
 * ("sci.space:train;rec.motorcycles:test;..."). Columns are found by the header line
 * (host, topic, role); the others are ignored.
 *
 * Ownership: labels_load hands out a struct labels the caller frees with labels_free;
 * everything returned by the accessors is borrowed from it.
 */
#ifndef SITESCOUT_EVAL_LABELS_H
#define SITESCOUT_EVAL_LABELS_H

#include <stddef.h>

#include "common/err.h"

#define LABELS_MAX_LINE  65536   /* bytes of one line */
#define LABELS_MAX_SITES 1000000 /* lines */

enum labels_role {
    LABELS_ROLE_NONE,        /* no role given for this topic */
    LABELS_ROLE_TRAIN,       /* a relevant training site */
    LABELS_ROLE_START,       /* a relevant start site */
    LABELS_ROLE_TRAIN_OTHER, /* an irrelevant training site */
    LABELS_ROLE_TEST,        /* anything else: relevant iff its topic is the target */
};

struct labels_site {
    char *host; /* host[:port], lower case, as in URLs */
    char *topic;
    char *roles; /* the raw role column: "t1:role;t2:role" */
};

struct labels;

/*
 * Read a sites.tsv. ERR_PARSE (err_msg "FILE:LINE: ...") for a missing column, an
 * empty host or topic, a malformed role entry or a host listed twice.
 */
enum err labels_load(const char *path, struct labels **out) WARN_UNUSED;

/* Same, from text in memory; `name` stands for the file in messages. */
enum err labels_parse(const char *text, size_t len, const char *name,
                      struct labels **out) WARN_UNUSED;

void labels_free(struct labels *l);

size_t labels_count(const struct labels *l);
const struct labels_site *labels_get(const struct labels *l, size_t i); /* in file order */
/* The site of host[:port] (case-insensitive), or NULL. */
const struct labels_site *labels_find(const struct labels *l, const char *host);

/* The site's role for `topic`; LABELS_ROLE_NONE when the role column does not name it. */
enum labels_role labels_role(const struct labels_site *s, const char *topic);

#endif
