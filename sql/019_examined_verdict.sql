-- The examination's own verdict, kept when a crawl model first judges a website again
-- (issue 30; job/jobjudge.c): a website is relevant when the crawl model says so and its
-- examination (the page classifier, while it was read) did too. NULL: never judged
-- again, so `relevant` is still the examination's.
ALTER TABLE sites ADD COLUMN examined_relevant boolean;
