-- The invariants the qrels readers enforce, checked on a user's pf_qrels (qid, docno, rel):
-- one row per violated rule, with its first offending row (duplicates also count their rows).
-- Run by engines/duckdb_engine.py prepare() after the column types are checked.
SELECT * FROM (
    SELECT 'null value' AS problem, qid, docno, CAST(rel AS VARCHAR) AS value, 1 AS n
    FROM pf_qrels WHERE qid IS NULL OR docno IS NULL OR rel IS NULL LIMIT 1)
UNION ALL
SELECT * FROM (
    SELECT 'grade not an integer', qid, docno, CAST(rel AS VARCHAR), 1
    FROM pf_qrels WHERE NOT isfinite(CAST(rel AS DOUBLE)) OR CAST(rel AS DOUBLE) <> round(CAST(rel AS DOUBLE))
    ORDER BY qid, docno LIMIT 1)
UNION ALL
SELECT * FROM (
    SELECT 'duplicate', qid, docno, NULL, count(*)
    FROM pf_qrels GROUP BY qid, docno HAVING count(*) > 1
    ORDER BY qid, docno LIMIT 1)
UNION ALL
-- an empty or all-blank id (blanks: trec_eval's field separators), which no TREC file holds: the first of
-- its row in (qid, docno) order, and how many rows that column is blank in (ids cast, so that a
-- table's ids of another type bind too); the test is sql_files.blank_id_sql's (test_sql_files keeps them equal)
SELECT * FROM (
    SELECT 'empty id', qid, docno, CAST(rel AS VARCHAR),
           CASE WHEN blank_qid THEN count(*) FILTER (WHERE blank_qid) OVER ()
                ELSE count(*) FILTER (WHERE blank_docno) OVER () END
    FROM (SELECT qid, docno, rel,
                 regexp_matches(CAST(qid AS VARCHAR), '^[ \t\n\r\x0B\x0C]*$') AS blank_qid,
                 regexp_matches(CAST(docno AS VARCHAR), '^[ \t\n\r\x0B\x0C]*$') AS blank_docno FROM pf_qrels)
    WHERE blank_qid OR blank_docno
    ORDER BY NOT blank_qid, qid, docno LIMIT 1)
