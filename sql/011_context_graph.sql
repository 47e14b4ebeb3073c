-- One more kind of model: 'ctxgraph', strategy context_graph's context graph (seeds 000
-- §3.2 and 004 §6.4): a line naming the layers that have a class, then the layer
-- classifier's bytes (classifier/ctxgraph.h), so that a resumed job crawls with the
-- layers it learned. (009 and 010 are other changes' numbers; if one of them widens
-- this list too, the list here must hold its kinds as well.)
ALTER TABLE models DROP CONSTRAINT models_kind_check;
ALTER TABLE models ADD CONSTRAINT models_kind_check
    CHECK (kind IN ('pages', 'homepages', 'keyphrases', 'weighttable', 'ctxgraph'));
