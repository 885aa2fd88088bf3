-- Step 2: the ranked, judged run: one row per retrieved document of an evaluated query.
-- Ranking rule (trec_eval): score descending, then docno descending in byte order; the file's rank
-- column and line order are ignored. $float32 = true compares scores after rounding them to 32-bit
-- floats (trec_eval 9 / pytrec_eval stored scores as float). $depth cuts each ranking (trec_eval -M).
-- Columns: rank (1-based), rel (NULL when unjudged), is_rel (rel >= $rel_level), is_judged_nonrel
-- (0 <= rel < $rel_level), gain (the grade when > 0, else 0), num_rel and num_nonrel of the query,
-- rel_cum / nonrel_cum (relevant / judged non-relevant documents at ranks <= rank).
CREATE OR REPLACE TEMP TABLE pf_ranked AS
WITH ordered AS (
    SELECT r.system, r.qid, r.docno,
           row_number() OVER (
               PARTITION BY r.system, r.qid
               ORDER BY CASE WHEN $float32 THEN CAST(CAST(r.score AS FLOAT) AS DOUBLE) ELSE r.score END DESC,
                        r.docno DESC
           ) AS rank
    FROM pf_run r SEMI JOIN pf_queries q ON r.system = q.system AND r.qid = q.qid
),
judged AS (
    SELECT o.system, o.qid, o.docno, o.rank, j.rel,
           coalesce(j.rel >= $rel_level, false) AS is_rel,
           coalesce(j.rel >= 0 AND j.rel < $rel_level, false) AS is_judged_nonrel,
           CAST(CASE WHEN j.rel > 0 THEN j.rel ELSE 0 END AS DOUBLE) AS gain,
           q.num_rel, q.num_nonrel
    FROM ordered o
    JOIN pf_queries q ON o.system = q.system AND o.qid = q.qid
    LEFT JOIN pf_qrels j ON o.qid = j.qid AND o.docno = j.docno
    WHERE $depth IS NULL OR o.rank <= $depth
)
SELECT *,
       sum(CAST(is_rel AS INTEGER)) OVER w AS rel_cum,
       sum(CAST(is_judged_nonrel AS INTEGER)) OVER w AS nonrel_cum
FROM judged
WINDOW w AS (PARTITION BY system, qid ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
