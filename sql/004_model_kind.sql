-- What a model was trained on: 'pages' (the page classifier of the internal crawler),
-- or 'homepages' (the paper's homepage classifier, trained on homepages only: the
-- homepage strategy and the page crawl with homepage post-processing use it).
ALTER TABLE models ADD COLUMN kind text NOT NULL DEFAULT 'pages'
    CHECK (kind IN ('pages', 'homepages'));
DROP INDEX models_job;
CREATE INDEX models_job ON models (job_id, kind, created_at DESC);
