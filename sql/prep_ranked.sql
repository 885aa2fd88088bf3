-- Step 3: the ranked run at the documents in the qrels: one row per retrieved document with a
-- qrels line (only those can change a measure; the others are unjudged, and num_ret comes from
-- pf_queries). Reads pf_ranks (system, qid, docno, rank, rel) and pf_queries.
-- $depth cuts each ranking (trec_eval -M); $judged_only then drops negative grades and ranks the
-- judged documents among themselves (trec_eval -J, ir_measures judged_only=True).
-- Columns: qkey (pf_queries' key), rank (1-based), rel, is_rel (rel >= $rel_level), is_judged (rel >= 0), is_judged_nonrel
-- (0 <= rel < $rel_level), gain (the grade when > 0, else 0), num_rel, num_nonrel and max_grade of the
-- query, rel_cum / nonrel_cum / unjudged_cum (relevant / judged non-relevant / negative-grade
-- documents at ranks <= rank).
CREATE OR REPLACE TEMP TABLE pf_ranked AS
WITH cut AS (
    SELECT system, qid, docno, rank, rel FROM pf_ranks WHERE $depth IS NULL OR rank <= $depth
),
kept AS (
    SELECT system, qid, docno, rank, rel FROM cut WHERE NOT $judged_only
    UNION ALL
    SELECT system, qid, docno, row_number() OVER (PARTITION BY system, qid ORDER BY rank) AS rank, rel
    FROM cut WHERE $judged_only AND rel >= 0
),
flagged AS (
    SELECT system, qid, docno, rank, rel,
           rel >= $rel_level AS is_rel,
           rel >= 0 AS is_judged,
           rel >= 0 AND rel < $rel_level AS is_judged_nonrel,
           CAST(CASE WHEN rel > 0 THEN rel ELSE 0 END AS DOUBLE) AS gain
    FROM kept
)
SELECT f.*, q.qkey, q.num_rel, q.num_nonrel, q.max_grade,
       sum(CASE WHEN f.is_rel THEN 1 ELSE 0 END) OVER w AS rel_cum,
       sum(CASE WHEN f.is_judged_nonrel THEN 1 ELSE 0 END) OVER w AS nonrel_cum,
       sum(CASE WHEN f.rel < 0 THEN 1 ELSE 0 END) OVER w AS unjudged_cum
FROM flagged f JOIN pf_queries q ON f.system = q.system AND f.qid = q.qid
WINDOW w AS (PARTITION BY q.qkey ORDER BY f.rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
