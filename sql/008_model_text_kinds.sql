-- Two more kinds of model, stored as text so that a resumed job crawls with what it
-- trained: 'keyphrases', the key phrases of strategy relevance_degree (seed 001, chosen
-- from the training pages by TF-DF and information gain), one term a line; and
-- 'weighttable', the topic's weight table of strategy weight_table (seed 002), one
-- "term weight idf" a line.
ALTER TABLE models DROP CONSTRAINT models_kind_check;
ALTER TABLE models ADD CONSTRAINT models_kind_check
    CHECK (kind IN ('pages', 'homepages', 'keyphrases', 'weighttable'));
