-- The planner's statistics of a crawl's own columns, refreshed cheaply (issue 15;
-- BENCHMARKS.md, "Scale-out (#15), session 9").
--
-- A crawl refreshes the statistics of sites as its job grows (crawlstore_analyze_start),
-- because a new job's rows are invisible to the planner until then. Only job_id and
-- state decide its plans (which job, which websites are on the border). ANALYZE samples
-- 300 rows per unit of the largest statistics target among the columns it analyzes:
-- the default target 100 sampled 30,000 rows, 0.3-1 s on a table holding ten earlier
-- jobs' websites, a third of PostgreSQL's CPU for the tenth job. A target of 30 samples
-- 9,000 rows: a job's share of the table is still seen (its most common values and an
-- estimate from the rest), for a tenth of the cost. Autovacuum's full ANALYZE keeps the
-- other columns' statistics at the default target.
ALTER TABLE sites ALTER COLUMN job_id SET STATISTICS 30,
                  ALTER COLUMN state SET STATISTICS 30;
