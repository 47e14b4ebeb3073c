-- sitescout schema, version 1: jobs, sites (examined and border), edges, pages,
-- metrics, models, and the user-facing view relevant_websites.

CREATE TABLE jobs (
    id               bigserial PRIMARY KEY,
    topic            text NOT NULL,
    body             jsonb NOT NULL,            -- the job body as submitted
    params           jsonb NOT NULL,            -- effective parameters, defaults filled in
    state            text NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'training', 'crawling', 'paused',
                                      'stopping', 'done', 'failed')),
    stop_reason      text,                      -- which stop condition ended the crawl
    error            text,                      -- why it failed
    pages_downloaded bigint NOT NULL DEFAULT 0,
    sites_examined   bigint NOT NULL DEFAULT 0,
    relevant_found   bigint NOT NULL DEFAULT 0,
    worker           text,                      -- process currently running it
    heartbeat_at     timestamptz,               -- last sign of life of that worker
    created_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    finished_at      timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_state ON jobs (state);

-- One row per website known to a job: examined, being examined, or on the border.
-- Border ranks are kept as sums so that adding an edge is one UPDATE:
-- rank = average edge weight over the examined sites linking here.
CREATE TABLE sites (
    job_id         bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    host           text NOT NULL,
    homepage       text NOT NULL,
    role           text NOT NULL DEFAULT 'discovered'
                   CHECK (role IN ('train', 'train_other', 'start', 'discovered')),
    state          text NOT NULL DEFAULT 'border'
                   CHECK (state IN ('border', 'claimed', 'examined', 'failed')),
    in_sites       integer NOT NULL DEFAULT 0,            -- examined sites linking here
    global_sum     double precision NOT NULL DEFAULT 0,   -- sum of confidence(V)
    local_sum      double precision NOT NULL DEFAULT 0,   -- sum of mean Pr[p|target] of V's linking pages
    rank           double precision NOT NULL DEFAULT 0,   -- by the job's edge weights
    confidence     double precision,                      -- Pr[target | W] once examined
    relevant       boolean,
    pages_visited  integer NOT NULL DEFAULT 0,
    pages_to_class integer,                               -- pages used until p_threshold
    claimed_by     text,
    claimed_at     timestamptz,
    discovered_at  timestamptz NOT NULL DEFAULT now(),
    examined_at    timestamptz,
    error          text,
    PRIMARY KEY (job_id, host)
);
CREATE INDEX sites_border ON sites (job_id, rank DESC) WHERE state = 'border';
CREATE INDEX sites_relevant ON sites (job_id, confidence DESC) WHERE relevant;

-- Aggregated transversal links of an examined site: one row per destination host.
CREATE TABLE edges (
    job_id     bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    src_host   text NOT NULL,
    dst_host   text NOT NULL,
    conf_sum   double precision NOT NULL,   -- sum of Pr[p|target] of the linking pages
    page_count integer NOT NULL,            -- number of linking pages
    PRIMARY KEY (job_id, src_host, dst_host)
);
CREATE INDEX edges_dst ON edges (job_id, dst_host);

CREATE TABLE pages (
    id           bigserial PRIMARY KEY,
    job_id       bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    host         text NOT NULL,
    url          text NOT NULL,
    status       integer,                   -- HTTP status; NULL when the fetch failed
    error        text,                      -- fetch failure reason
    content_type text,
    bytes        integer,
    pr_target    double precision,          -- page classifier confidence for the target
    purpose      text NOT NULL DEFAULT 'crawl' CHECK (purpose IN ('crawl', 'train')),
    fetched_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pages_site ON pages (job_id, host);

-- Time series of a job's progress, written every few seconds while it runs.
CREATE TABLE metrics (
    id                  bigserial PRIMARY KEY,
    job_id              bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    ts                  timestamptz NOT NULL DEFAULT now(),
    elapsed_s           double precision NOT NULL,
    pages               bigint NOT NULL,
    sites_examined      bigint NOT NULL,
    relevant_found      bigint NOT NULL,
    harvest_rate        double precision,
    harvest_rate_window double precision,
    pprs                double precision,
    pprs_window         double precision
);
CREATE INDEX metrics_job ON metrics (job_id, ts);

-- Trained classifiers (serialised), with their cross-validation figures.
CREATE TABLE models (
    id             bigserial PRIMARY KEY,
    job_id         bigint REFERENCES jobs (id) ON DELETE CASCADE,
    format_version integer NOT NULL,
    p_err          double precision NOT NULL,
    page_accuracy  double precision,
    cv             jsonb,
    params         jsonb,
    data           bytea NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX models_job ON models (job_id, created_at DESC);

-- What users query: the relevant websites a job found (training sites excluded),
-- best first.
CREATE VIEW relevant_websites AS
SELECT job_id,
       host,
       homepage,
       confidence,
       pages_visited,
       examined_at AS found_at,
       rank() OVER (PARTITION BY job_id ORDER BY confidence DESC, examined_at) AS rank
FROM sites
WHERE state = 'examined' AND relevant AND role NOT IN ('train', 'train_other');
