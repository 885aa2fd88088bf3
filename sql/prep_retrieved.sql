-- Step 0: how many documents each system retrieved for each query (before any depth cut).
-- Reads pf_run (system, qid, docno, score). Streamed run files fill this table themselves.
CREATE OR REPLACE TEMP TABLE pf_retrieved AS
SELECT system, qid, count(*) AS n FROM pf_run GROUP BY system, qid;
