-- What a job's examples are worth, said when it is created (issue 30; job/jobwarn.h): a
-- JSON array of {"code", "message"}, e.g. few_relevant_examples. The API, the CLI and the
-- dashboard show them; jobs created before this migration have none.
ALTER TABLE jobs ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]';
