-- The HTTP proxy a job's runs fetch through (issue 28): `sitescout crawl --proxy URL`
-- records it, and `crawl --resume` without --proxy fetches through it again, as docs/crawl.md
-- promises ("continues with the same settings"); a --proxy given to the resume replaces it.
-- NULL: the job fetches directly. serve and workers fetch through their own --proxy.
ALTER TABLE jobs ADD COLUMN proxy text;
