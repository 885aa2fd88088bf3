-- Step 1: trec_eval's rank, and the grade, of each retrieved document that is in the qrels (any
-- grade: a measure sees a ranking only there; ranks count all retrieved documents). Queries
-- without judgments are not ranked.
-- Ranking rule (trec_eval): score descending, then docno descending in byte order; the file's rank
-- column and line order are ignored. $float32 = true compares scores after rounding them to 32-bit
-- floats (trec_eval 9 / pytrec_eval stored scores as float). Streamed run files fill this table
-- themselves (pairedframe.engines.ranking computes the same ranks without a string sort).
CREATE OR REPLACE TEMP TABLE pf_ranks AS
WITH ranked AS (
    SELECT r.system, r.qid, r.docno,
           row_number() OVER (
               PARTITION BY r.system, r.qid
               ORDER BY CASE WHEN NOT $float32 THEN r.score
                             -- beyond the float32 range IEEE rounding gives +-inf; DuckDB's CAST errors
                             ELSE coalesce(CAST(TRY_CAST(r.score AS FLOAT) AS DOUBLE),
                                           CASE WHEN r.score > 0 THEN CAST('inf' AS DOUBLE)
                                                ELSE CAST('-inf' AS DOUBLE) END)
                        END DESC,
                        r.docno DESC
           ) AS rank
    FROM pf_run r
    WHERE r.qid IN (SELECT qid FROM pf_qrels)
)
SELECT r.system, r.qid, r.docno, r.rank, j.rel
FROM ranked r JOIN pf_qrels j ON r.qid = j.qid AND r.docno = j.docno;
