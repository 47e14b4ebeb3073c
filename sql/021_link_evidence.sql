-- A crawl model's verdict weighs the website's links too (issue 30; classifier/linkjudge.h):
-- the log-likelihood ratio of the verdicts of the examined websites it links to and that
-- link to it (nats; added to its text's logit(score) - logit(threshold)), how many such
-- links it has and how many of them are to or from a relevant website (0, 0, 0: none).
-- NULL: no judging that weighs links gave the verdict (the examination's, a verdict
-- given as the website was read, or a judging with --link-rounds 0).
ALTER TABLE sites ADD COLUMN link_evidence double precision,
    ADD COLUMN link_count integer,
    ADD COLUMN link_relevant integer;
-- The view gives each verdict's link evidence too (NULL for a label's); its columns
-- before stay as they were.
CREATE OR REPLACE VIEW relevant_websites AS
SELECT job_id,
       host,
       homepage,
       role,
       confidence,
       pages_visited,
       examined_at AS found_at,
       row_number() OVER (PARTITION BY job_id ORDER BY confidence DESC, examined_at, host)
           AS position,
       CASE WHEN label IS NOT NULL THEN 'user'
            WHEN model_id IS NULL THEN 'examination'
            ELSE 'crawl_model' END AS judged_by,
       CASE WHEN label IS NULL THEN model_id END AS model_id,
       CASE WHEN label IS NOT NULL THEN labelled_at
            ELSE coalesce(judged_at, examined_at) END AS judged_at,
       CASE WHEN label IS NULL THEN link_evidence END AS link_evidence
FROM sites
WHERE state = 'examined' AND relevant AND role IN ('start', 'discovered');
