-- When a website was found: the job's pages downloaded at the moment it was judged
-- relevant (its last such verdict, for the page crawlers whose verdicts change); NULL
-- while it is not relevant. Gives recall against pages downloaded (sitescout experiment).
ALTER TABLE sites ADD COLUMN found_pages bigint;
