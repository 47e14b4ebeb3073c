-- The border of a large job (issue 15; BENCHMARKS.md, "A border of a million websites").
--
-- crawlstore_claim and the API's border list take the border by rank DESC,
-- discovered_at, host. sites_border (job_id, rank DESC) gives the rank only, so each
-- claim sorted the run of websites tied at the top rank (an incremental sort) before it
-- could lock the first; ranks tie often (a website with one in-link has its linker's
-- weight as rank; the websites found by one examination share discovered_at). This
-- index hands the first website out directly and replaces sites_border.
-- (The count of claimed websites, polled every second too, has migration 009's
-- sites_claimed.)
CREATE INDEX sites_border_order ON sites (job_id, rank DESC, discovered_at, host)
    WHERE state = 'border';
DROP INDEX IF EXISTS sites_border;
