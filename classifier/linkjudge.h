/*
 * A website known by the company it keeps (issue 30, docs/classifier.md "Links"): the
 * verdicts of the websites it links to and of those that link to it weigh in its own.
 *
 * Websites on a topic link to each other more than to the rest of the web (topical
 * locality, Davison 2000; hyperlinks in classification: Chakrabarti, Dom & Indyk 1998).
 * How much more is learnt from the job's own verdicts, for each direction: of the links
 * out of the relevant websites, the share whose other end is relevant (a1), and of the
 * links out of the others (a0); the same for links in. A neighbour's verdict is taken as
 * a probability q, sigma(slope (text + evidence)) for a judged one (slope 0: 1 if it is
 * relevant, else 0), its verdict for a fixed one, 0 for a vetoed one; the rates count each
 * website in both classes by its q. A website's link evidence is then the log-likelihood
 * ratio of its neighbours, each relevant with probability q and a coin of bias a1 if the
 * website is relevant, a0 if not:
 *   evidence = sum over its neighbours (each link to or from a website given) of
 *              ln((q a1 + (1 - q) (1 - a1)) / (q a0 + (1 - q) (1 - a0)))
 * (q 1: ln(a1 / a0); q 0: ln((1 - a1) / (1 - a0)); q 1/2: nothing), and it is relevant
 * when its text's evidence (logit(score) - logit(threshold)) plus its links' is above 0,
 * it is not vetoed (a website more like one the user rejected), and its examination (the
 * page classifier, as it read) called it relevant or its links' evidence alone is above
 * exam_links. A direction whose a1 is not above a0 says nothing
 * (evidence 0). The verdicts, the probabilities and the rates are computed again from each
 * round's (relaxation labelling), a fixed number of rounds.
 *
 * Why probabilities (session 27): taken as 0 or 1, a few websites of a neighbour topic
 * just above the threshold made each of their neighbours' links worth ln(a1 / a0), ~3
 * nats, and a neighbour topic read whole (held out; long crawls) was listed whole,
 * website by website. Counted as probabilities, a neighbour just above the threshold
 * says little either way.
 *
 * Why links may overrule the examination (session 27): the examination and the crawl
 * model's text are two readings of the same pages; when they disagree, the links, a view
 * the text does not give, decide, if they say so strongly. Full crawls had the
 * examination turn down websites the links called relevant at +2 to +13 nats, 17 of 18
 * truly relevant (docs/classifier.md, "The examination's no").
 *
 * No database, no allocation the caller sees: job/jobjudge.c gives it a job's examined
 * websites and the links between them.
 */
#ifndef SITESCOUT_CLASSIFIER_LINKJUDGE_H
#define SITESCOUT_CLASSIFIER_LINKJUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct linkjudge_site {
    /* in */
    int fixed;   /* -1: this judging decides it (text, veto); 0 or 1: its verdict, kept (an
                  * example, a label, a website the judging leaves as it is) */
    double text; /* the text's evidence: logit(score) - logit(threshold) */
    int veto;    /* never relevant (a website more like one the user rejected) */
    int exam_no; /* its examination called it not relevant: a veto, unless its links'
                  * evidence is above exam_links (linkjudge_run) */
    /* out */
    int relevant;             /* the verdict (fixed ones: as given) */
    double evidence;          /* its links' log-likelihood ratio (nats) */
    int overruled;            /* exam_no, and its links overruled the examination */
    uint32_t linked;          /* its links to or from the other websites given ... */
    uint32_t linked_relevant; /* ... of which to or from a relevant one (the last round's
                               * verdicts, those its evidence is from) */
};

struct linkjudge_edge {
    uint32_t src, dst; /* indexes into the sites; src != dst, each pair once */
};

/* The rates learnt in the last round (a1 = *_relevant, a0 = *_other). */
struct linkjudge_rates {
    double out_relevant, out_other, in_relevant, in_other;
};

/* Pseudo-links at 1/2 each rate starts from, so that a job with few links says little. */
#define LINKJUDGE_PRIOR_LINKS 2.0

/*
 * Judges sites[0..n) with their links edges[0..n_edges) in `rounds` rounds (0: the text
 * alone), each judged neighbour relevant with probability sigma(slope (text + evidence))
 * (slope 0: its verdict, 0 or 1); an examination's "not relevant" stands unless the
 * website's links' evidence is above exam_links nats (INFINITY: it always stands); fills
 * each site's out fields and, if rates is not NULL, the last rates. ERR_INVAL for an edge
 * out of range or a loop; ERR_NOMEM.
 */
enum err linkjudge_run(struct linkjudge_site *sites, size_t n, const struct linkjudge_edge *edges,
                       size_t n_edges, uint32_t rounds, double slope, double exam_links,
                       struct linkjudge_rates *rates) WARN_UNUSED;

/* The confidence a judged website is stored with: sigma(text + evidence), at most 1/2 when
 * vetoed or its examination's "not relevant" stands. */
double linkjudge_confidence(const struct linkjudge_site *s);

#endif
