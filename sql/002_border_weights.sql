-- The border rank is the average edge weight over the examined sites linking to a
-- site. The weight of each edge is computed by the crawler with the job's edge-weight
-- mode (global, local or combined), so one running sum serves every mode.
ALTER TABLE sites ADD COLUMN weight_sum double precision NOT NULL DEFAULT 0;
-- Which worker process runs a job, for resuming after a crash.
ALTER TABLE jobs ADD COLUMN stop_requested text
    CHECK (stop_requested IN ('stop', 'pause'));
