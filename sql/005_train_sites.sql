-- Training websites read so far (issue 16): a job killed or paused while training reads
-- again only the websites it had not finished. One row per training website (its index
-- in the job's relevant_sites then other_sites), the record as job/trainsave.c writes
-- it: json, not jsonb, since page text may hold any character. The rows go once the
-- job has trained.
CREATE TABLE train_sites (
    job_id bigint  NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    idx    integer NOT NULL CHECK (idx >= 0),
    record json    NOT NULL,
    PRIMARY KEY (job_id, idx)
);
