-- The runners of a job (issue 15): its lead (the holder of the job's lease in
-- jobs.worker, which trains it and decides when it ends) and any helpers (processes
-- that examine the job's websites beside the lead). Each renews heartbeat_at about once
-- a second. A website claimed by a runner without a live row here (its heartbeat older
-- than the lease, or its process gone) goes back to the border: that is the site lease.
CREATE TABLE job_workers (
    job_id       bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    worker       text NOT NULL,
    role         text NOT NULL CHECK (role IN ('lead', 'helper')),
    joined_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    -- pages of the job's budget this runner may download beyond those recorded in
    -- jobs.pages_downloaded: pages_downloaded + the live runners' allowances never
    -- pass max_pages, so the budget holds however many runners share it
    allowance    bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, worker)
);

-- The claims of one runner, found without a scan of the job's border.
CREATE INDEX sites_claimed ON sites (job_id, claimed_by) WHERE state = 'claimed';
