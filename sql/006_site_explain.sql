-- A website's verdict explained (issue 17): what the internal crawler knew as it read.
-- The posterior after a page depends on the website's prior (the job's harvest rate
-- when it was claimed), which is stored nowhere else, so it is written at crawl time
-- with the pages. Rows of older jobs keep NULLs: the API answers them with nulls.
ALTER TABLE pages ADD COLUMN posterior double precision;   -- Pr[target | pages so far]
ALTER TABLE sites ADD COLUMN prior double precision;       -- Pr[target] before any page
-- How the verdict was reached: 'threshold' (p_threshold), 'decide_limit'
-- (max_pages_to_decide spent, judged as it stood) or 'undecided' (reading ended first).
ALTER TABLE sites ADD COLUMN verdict_by text;
-- Why reading the website stopped (docs/crawl.md lists the reasons).
ALTER TABLE sites ADD COLUMN read_stop text;
-- weight(V, W) as the job's edge-weight mode computed it when the link was stored.
ALTER TABLE edges ADD COLUMN weight double precision;
