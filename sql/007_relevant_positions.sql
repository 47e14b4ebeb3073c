-- One meaning of "rank" (issue 17): the border rank the external crawler gives a website
-- (sites.rank, the API's "rank"). The view's place in the best-first list, which was
-- also called rank, is now "position"; the view also says which websites were the
-- user's own start sites ("role": start) and which the crawl discovered, so that the
-- two can be shown apart. Training websites stay out.
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
           AS position
FROM sites
WHERE state = 'examined' AND relevant AND role IN ('start', 'discovered');
