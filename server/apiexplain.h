/*
 * Internal to server/: a verdict explained (GET /api/jobs/{id}/sites/{host}/pages,
 * docs/api.md), the crawl model's part. The store's answer (store/apistore.h) tells the
 * examination's story; a website judged again by a crawl model gets that model's view of
 * each page added, so that a user sees which of its pages made the verdict.
 */
#ifndef SITESCOUT_SERVER_APIEXPLAIN_H
#define SITESCOUT_SERVER_APIEXPLAIN_H

#include <stdint.h>

#include "common/err.h"

struct store;

/*
 * *json (apistore_site_pages' text, malloc'd) rewritten in place: when its judged.by is
 * crawl_model, each page gets model_pr (Pr[target | page] by the model judged.model_id)
 * and model_weight (its weight in the website's score), null for a page that had no part
 * in the verdict; and the text a member crawl_model: model_id, score (the pages' weighted
 * mean), threshold, confidence (jobjudge_confidence of the two), weight_cap and vetoed
 * (the score is above the threshold, but the examination said not relevant). Otherwise
 * the pages get nulls and crawl_model is null; so does a model that is no longer stored
 * or cannot be read (logged). ERR_DB: the database failed.
 */
enum err apiexplain_crawl_model(struct store *s, int64_t job, const char *host,
                                char **json) WARN_UNUSED;

#endif
