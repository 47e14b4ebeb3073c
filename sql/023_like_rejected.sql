-- A website more like one the user rejected than like any relevant one is not listed
-- (issue 31; classifier/sitejudge.h, sitejudge_rejected_like): sites.like_rejected names
-- that rejected website, as the crawl model's last judging found it; NULL when none.
ALTER TABLE sites ADD COLUMN like_rejected text;
