-- Preferences, step 0: the rank of each retrieved document that some preference judges, by
-- form_prefs_counts.c's own rule -- score descending, then docno *ascending* in byte order (the other
-- measures' prep_ranks.sql breaks ties by docno descending, as form_res_rels.c does). $float32 as
-- in prep_ranks.sql. Reads pf_run and pf_qrels (each judged (qid, docno) once); creates pf_ranks.
CREATE OR REPLACE TEMP TABLE pf_ranks AS
WITH ranked AS (
    SELECT r.system, r.qid, r.docno,
           row_number() OVER (
               PARTITION BY r.system, r.qid
               ORDER BY CASE WHEN NOT $float32 THEN r.score
                             ELSE coalesce(CAST(TRY_CAST(r.score AS FLOAT) AS DOUBLE),
                                           CASE WHEN r.score > 0 THEN CAST('inf' AS DOUBLE)
                                                ELSE CAST('-inf' AS DOUBLE) END)
                        END DESC,
                        r.docno ASC
           ) AS rank
    FROM pf_run r
    WHERE r.qid IN (SELECT qid FROM pf_qrels)
)
SELECT r.system, r.qid, r.docno, r.rank, j.rel
FROM ranked r JOIN pf_qrels j ON r.qid = j.qid AND r.docno = j.docno;
