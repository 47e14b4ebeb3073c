-- The crawl's hot tables without foreign keys to jobs (issue 15; BENCHMARKS.md,
-- "Scale-out (#15), session 10").
--
-- Each row a crawl inserts into sites, pages or edges ran a referential-integrity check
-- of its own (a lookup of the job's row, locked FOR KEY SHARE): about 30 per examined
-- website, 10-15% of PostgreSQL's CPU in a crawl. The crawl's writes now lock the job's
-- row once per statement instead (store/sitewrite.c), and deleting a job deletes these
-- rows itself (apistore_job_delete: the job's row locked first, so no write of the job
-- can commit after its rows are deleted). The smaller tables keep their foreign keys.
ALTER TABLE sites DROP CONSTRAINT IF EXISTS sites_job_id_fkey;
ALTER TABLE pages DROP CONSTRAINT IF EXISTS pages_job_id_fkey;
ALTER TABLE edges DROP CONSTRAINT IF EXISTS edges_job_id_fkey;
