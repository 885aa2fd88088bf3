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
-- an empty or all-blank id (blanks: trec_eval's field separators), which no TREC file holds: the first of
-- its row in (system, qid, docno) order, and how many rows that column is blank in (ids cast, so that a
-- table's ids of another type bind too); the test is sql_files.blank_id_sql's (test_sql_files keeps them equal)
SELECT * FROM (
    SELECT 'empty id', system, qid, docno, CAST(score AS VARCHAR),
           CASE WHEN blank_system THEN count(*) FILTER (WHERE blank_system) OVER ()
                WHEN blank_qid THEN count(*) FILTER (WHERE blank_qid) OVER ()
                ELSE count(*) FILTER (WHERE blank_docno) OVER () END
    FROM (SELECT system, qid, docno, score,
                 regexp_matches(CAST(system AS VARCHAR), '^[ \t\n\r\x0B\x0C]*$') AS blank_system,
                 regexp_matches(CAST(qid AS VARCHAR), '^[ \t\n\r\x0B\x0C]*$') AS blank_qid,
                 regexp_matches(CAST(docno AS VARCHAR), '^[ \t\n\r\x0B\x0C]*$') AS blank_docno FROM pf_run)
    WHERE blank_system OR blank_qid OR blank_docno
    ORDER BY NOT blank_system, NOT blank_qid, system, qid, docno LIMIT 1)
