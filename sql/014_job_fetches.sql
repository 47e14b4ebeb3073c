-- The crawl's fetches by outcome, counted as its pages are written (issue 15;
-- BENCHMARKS.md, "Scale-out (#15), session 11").
--
-- The job endpoint and /metrics grouped all of a job's crawl pages by outcome at every
-- refresh: 20-60 ms for a job of 25,000 pages, growing with the job. Each statement that
-- writes a website's pages now adds them here too (store/sitewrite.c, store/crawlstore.c),
-- and the readers read a row per outcome. kind is the outcome: 'ok', 'http_404', ... or
-- the fetch's error (docs/api.md). Only a new outcome inserts a row, so the foreign key
-- costs a check per job and outcome, not per page.
CREATE TABLE job_fetches (
    job_id bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    kind   text   NOT NULL,
    n      bigint NOT NULL,
    PRIMARY KEY (job_id, kind)
);

INSERT INTO job_fetches (job_id, kind, n)
SELECT job_id, coalesce(error, CASE WHEN status >= 400 THEN 'http_' || status ELSE 'ok' END),
       count(*)
FROM pages WHERE purpose = 'crawl'
GROUP BY 1, 2;
