/* Incremental error-corrected website classification in log space, plus the LinkRank helper. */
#include "classifier/sitecls.h"

#include <math.h>

#define PRIOR_EPS 1e-6

/* Pr[target] from the two log scores, without overflow (logistic of the difference). */
static double posterior_of(const double *ls)
{
    double d = ls[1] - ls[0];
    if (d <= 0)
        return 1.0 / (1.0 + exp(d));
    double x = exp(-d);
    return x / (1.0 + x);
}

enum err sitecls_init(struct sitecls *s, double prior_target, double p_err, double p_threshold)
{
    if (!(prior_target >= 0 && prior_target <= 1) || !(p_err >= 0 && p_err <= 1) ||
        !(p_threshold > 0 && p_threshold <= 1))
        return err_set(ERR_INVAL,
                       "website classifier: prior %g, p_err %g, p_threshold %g out of range",
                       prior_target, p_err, p_threshold);
    if (prior_target < PRIOR_EPS)
        prior_target = PRIOR_EPS;
    if (prior_target > 1 - PRIOR_EPS)
        prior_target = 1 - PRIOR_EPS;
    s->log_score[0] = log(prior_target);
    s->log_score[1] = log(1 - prior_target);
    s->p_err = p_err;
    s->p_threshold = p_threshold;
    s->posterior = posterior_of(s->log_score);
    s->pages = 0;
    s->decided = false;
    return ERR_OK;
}

bool sitecls_add_page(struct sitecls *s, double x)
{
    if (s->decided)
        return true;
    if (isnan(x))
        x = 0.5;
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    double lt = x * (1 - s->p_err) + (1 - x) * s->p_err;
    double lo = (1 - x) * (1 - s->p_err) + x * s->p_err;
    s->log_score[0] += log(lt > SITECLS_MIN_LIKELIHOOD ? lt : SITECLS_MIN_LIKELIHOOD);
    s->log_score[1] += log(lo > SITECLS_MIN_LIKELIHOOD ? lo : SITECLS_MIN_LIKELIHOOD);
    s->posterior = posterior_of(s->log_score);
    s->pages++;
    double top = s->posterior > 0.5 ? s->posterior : 1 - s->posterior;
    s->decided = top >= s->p_threshold;
    return s->decided;
}

double sitecls_confidence(const struct sitecls *s)
{
    return s->posterior;
}

bool sitecls_relevant(const struct sitecls *s)
{
    return s->posterior > 1 - s->posterior;
}

bool sitecls_decided(const struct sitecls *s)
{
    return s->decided;
}

bool sitecls_relevant_min(const struct sitecls *s, unsigned min_pages)
{
    return sitecls_relevant(s) && (s->decided || s->pages >= min_pages);
}

unsigned sitecls_pages(const struct sitecls *s)
{
    return s->pages;
}

double sitecls_prior(unsigned relevant, unsigned examined, double initial, unsigned weight)
{
    if (!(initial >= 0 && initial <= 1))
        initial = 0.5;
    if (relevant > examined)
        relevant = examined;
    double denom = (double)examined + weight;
    double p = denom > 0 ? ((double)relevant + initial * weight) / denom : initial;
    return p < 0.05 ? 0.05 : p > 0.95 ? 0.95 : p;
}

void sitecls_linkrank_init(struct sitecls_linkrank *lr, double c)
{
    lr->sum = 0;
    lr->c = c;
}

void sitecls_linkrank_add(struct sitecls_linkrank *lr, double pr_target, size_t n_transversal)
{
    if (isnan(pr_target))
        pr_target = 0.5;
    pr_target = pr_target < 0 ? 0 : pr_target > 1 ? 1 : pr_target;
    lr->sum += pr_target * (double)n_transversal + lr->c;
}

double sitecls_linkrank_value(const struct sitecls_linkrank *lr, double site_confidence)
{
    if (!(site_confidence >= 1e-6))
        site_confidence = 1e-6;
    return lr->sum / site_confidence;
}
