-- A model's bytes compressed with lz4 where the server has it (PostgreSQL 14 or later,
-- built with lz4, as Debian's is), not pglz: a crawl stores a crawl model at each
-- judging (about 1 MB for 10,000 terms), and pglz took 25 ms of each, lz4 5 ms, stored
-- in 417 KB against 340 KB (docs/benchmarks/judgement.md, session 24). The crawl waits
-- for the write. Models stored before keep their compression; a server without lz4
-- keeps pglz (the statement is run as a string: a server before 14 would not parse it).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'
               AND 'lz4' = ANY (enumvals)) THEN
        EXECUTE 'ALTER TABLE models ALTER COLUMN data SET COMPRESSION lz4';
    END IF;
END
$$;
