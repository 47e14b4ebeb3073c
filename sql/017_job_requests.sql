-- Every page request a job's crawl makes (issue 29, item 8; docs/api.md, "A job").
--
-- pages_downloaded counts the pages recorded with their websites (the verdicts written,
-- the websites put back): the page budget is defined on it. A runner killed with -9 has
-- made requests it never recorded (the websites it had in flight, examined again by
-- others): requests counts them too. Each runner adds its requests here ahead of making
-- them, CRAWLMETER_REQUESTS_AHEAD at a time (crawler/crawlmeter.h), and gives back at
-- its end what it did not use, so a kill leaves every request it made counted (and at
-- most that many more). Jobs of earlier versions start from their pages.
ALTER TABLE jobs ADD COLUMN requests bigint NOT NULL DEFAULT 0;
UPDATE jobs SET requests = pages_downloaded;
