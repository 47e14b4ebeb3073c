-- Learning from the crawl (issue 30, docs/classifier.md "Learning from the crawl"):
-- - pages.terms: each classified page's term counts (classifier/termvec.h), so that a
--   website can be judged again by a newer model without fetching it again;
-- - sites.model_id / judged_at: the model whose verdict a website has, and when it was
--   given (NULL: the page classifier of the examination, at examined_at);
-- - models of kind 'crawl': the crawl's models (classifier/nbem.h), one per retraining.
ALTER TABLE pages ADD COLUMN terms text;
ALTER TABLE sites ADD COLUMN model_id bigint REFERENCES models (id) ON DELETE SET NULL,
    ADD COLUMN judged_at timestamptz;
ALTER TABLE models DROP CONSTRAINT models_kind_check;
ALTER TABLE models ADD CONSTRAINT models_kind_check
    CHECK (kind IN ('pages', 'homepages', 'keyphrases', 'weighttable', 'ctxgraph', 'crawl'));
-- The view says who gave each verdict: 'examination' (the page classifier, while the
-- website was read) or 'crawl_model' (a model learnt from the crawl, judging again what
-- was read), which model and when. Its columns before stay as they were.
DROP VIEW relevant_websites;
CREATE VIEW relevant_websites AS
SELECT job_id,
       host,
       homepage,
       role,
       confidence,
       pages_visited,
       examined_at AS found_at,
       row_number() OVER (PARTITION BY job_id ORDER BY confidence DESC, examined_at, host)
           AS position,
       CASE WHEN model_id IS NULL THEN 'examination' ELSE 'crawl_model' END AS judged_by,
       model_id,
       coalesce(judged_at, examined_at) AS judged_at
FROM sites
WHERE state = 'examined' AND relevant AND role IN ('start', 'discovered');
