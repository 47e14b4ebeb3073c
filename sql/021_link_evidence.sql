-- A crawl model's verdict weighs the website's links too (issue 30; classifier/linkjudge.h):
-- the log-likelihood ratio of the verdicts of the examined websites it links to and that
-- link to it (nats; added to its text's logit(score) - logit(threshold)), how many such
-- links it has and how many of them are to or from a relevant website (0, 0, 0: none).
-- NULL: no judging that weighs links gave the verdict (the examination's, a verdict
-- given as the website was read, or a judging with --link-rounds 0).
ALTER TABLE sites ADD COLUMN link_evidence double precision,
    ADD COLUMN link_count integer,
    ADD COLUMN link_relevant integer;
