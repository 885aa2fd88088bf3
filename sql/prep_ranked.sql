-- Step 2b: the ranked, judged run: one row per retrieved document that has a grade >= 0 in the qrels
-- (only those can change a measure; unjudged documents and negative grades count as non-relevant
-- and non-judged, and num_ret comes from pf_queries). Reads pf_ranks (system, qid, docno, rank, rel).
-- $depth cuts each ranking (trec_eval -M).
-- Columns: rank (1-based, among all retrieved documents), rel, is_rel (rel >= $rel_level),
-- is_judged_nonrel (0 <= rel < $rel_level), gain (the grade when > 0, else 0), num_rel and num_nonrel
-- of the query, rel_cum / nonrel_cum (relevant / judged non-relevant documents at ranks <= rank).
CREATE OR REPLACE TEMP TABLE pf_ranked AS
WITH judged AS (
    SELECT system, qid, docno, rank, rel,
           rel >= $rel_level AS is_rel,
           rel < $rel_level AS is_judged_nonrel,
           CAST(CASE WHEN rel > 0 THEN rel ELSE 0 END AS DOUBLE) AS gain
    FROM pf_ranks
    WHERE rel >= 0 AND ($depth IS NULL OR rank <= $depth)
)
SELECT j.*, q.num_rel, q.num_nonrel,
       sum(CAST(j.is_rel AS INTEGER)) OVER w AS rel_cum,
       sum(CAST(j.is_judged_nonrel AS INTEGER)) OVER w AS nonrel_cum
FROM judged j JOIN pf_queries q ON j.system = q.system AND j.qid = q.qid
WINDOW w AS (PARTITION BY j.system, j.qid ORDER BY j.rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
