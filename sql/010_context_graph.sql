-- One more kind of model: 'ctxgraph', strategy context_graph's context graph (seeds 000
-- §3.2 and 004 §6.4): a line naming the layers that have a class, then the layer
-- classifier's bytes (classifier/ctxgraph.h), so that a resumed job crawls with the
-- layers it learned.
ALTER TABLE models DROP CONSTRAINT models_kind_check;
ALTER TABLE models ADD CONSTRAINT models_kind_check
    CHECK (kind IN ('pages', 'homepages', 'keyphrases', 'weighttable', 'ctxgraph'));
