-- The invariants the run readers enforce, checked on a user's pf_run (system, qid, docno, score):
-- one row per violated rule, with its first offending row (duplicates also count their rows).
-- Run by engines/duckdb_engine.py prepare() after the column types are checked.
SELECT * FROM (
    SELECT 'null id' AS problem, system, qid, docno, CAST(score AS VARCHAR) AS value, 1 AS n
    FROM pf_run WHERE system IS NULL OR qid IS NULL OR docno IS NULL LIMIT 1)
UNION ALL
SELECT * FROM (
    SELECT 'null or NaN score (inf and -inf rank first / last, as trec_eval ranks them)', system, qid, docno,
           CAST(score AS VARCHAR), 1
    FROM pf_run WHERE score IS NULL OR isnan(TRY_CAST(score AS DOUBLE))  -- TRY: a text score is refused by its type
    ORDER BY system, qid, docno LIMIT 1)
UNION ALL
SELECT * FROM (
    SELECT 'duplicate', system, qid, docno, NULL, count(*)
    FROM pf_run GROUP BY system, qid, docno HAVING count(*) > 1
    ORDER BY system, qid, docno LIMIT 1)
UNION ALL
-- an empty id, which no TREC file holds: the first of its row in (system, qid, docno) order, and how
-- many rows that column is empty in (ids cast, so that a table's ids of another type bind too)
SELECT * FROM (
    SELECT 'empty id', system, qid, docno, CAST(score AS VARCHAR),
           CASE WHEN CAST(system AS VARCHAR) = '' THEN count(*) FILTER (WHERE CAST(system AS VARCHAR) = '') OVER ()
                WHEN CAST(qid AS VARCHAR) = '' THEN count(*) FILTER (WHERE CAST(qid AS VARCHAR) = '') OVER ()
                ELSE count(*) FILTER (WHERE CAST(docno AS VARCHAR) = '') OVER () END
    FROM pf_run WHERE CAST(system AS VARCHAR) = '' OR CAST(qid AS VARCHAR) = '' OR CAST(docno AS VARCHAR) = ''
    ORDER BY CAST(system AS VARCHAR) <> '', CAST(qid AS VARCHAR) <> '', system, qid, docno LIMIT 1)
