-- Relevance feedback (issue 31, docs/api.md "Labels"): a user says a website of a job is
-- relevant or not, and the job learns from it.
-- - sites.label: the user's verdict (NULL: none); labelled_at when it was given. A
--   labelled website's verdict (relevant, confidence 1 or 0) is the label, whatever
--   reads or judgings come after; a labelled border website is read next (its rank).
-- - sites.unlabelled_relevant / unlabelled_confidence: the verdict the website had
--   before its label (or the examination's, for a website read after it was labelled),
--   given back when the label is taken back, until the next judging.
-- - jobs.labels_changed_at: the last label given or taken back; labels_judged_at: the
--   labels_changed_at the job's last judging learnt from. While they differ, the job's
--   runner (or, for a job that does not run, `serve`) judges its websites again.
ALTER TABLE sites ADD COLUMN label boolean,
    ADD COLUMN labelled_at timestamptz,
    ADD COLUMN unlabelled_relevant boolean,
    ADD COLUMN unlabelled_confidence double precision;
CREATE INDEX sites_labelled ON sites (job_id, labelled_at) WHERE label IS NOT NULL;
ALTER TABLE jobs ADD COLUMN labels_changed_at timestamptz,
    ADD COLUMN labels_judged_at timestamptz;
-- The view says 'user' for a labelled website's verdict. Its columns before stay as
-- they were.
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
            ELSE coalesce(judged_at, examined_at) END AS judged_at
FROM sites
WHERE state = 'examined' AND relevant AND role IN ('start', 'discovered');
