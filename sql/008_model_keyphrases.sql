-- A third kind of model: 'keyphrases', the key phrases of strategy relevance_degree
-- (seed 001, chosen from the training pages by TF-DF and information gain), stored as
-- text, one term a line, so that a resumed job crawls with the phrases it trained.
ALTER TABLE models DROP CONSTRAINT models_kind_check;
ALTER TABLE models ADD CONSTRAINT models_kind_check
    CHECK (kind IN ('pages', 'homepages', 'keyphrases'));
