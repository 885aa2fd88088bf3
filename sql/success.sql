-- Success@k (trec_eval m_success.c): 1 when a relevant document is in the top $k, else 0.
WITH hits AS (
    SELECT DISTINCT qkey FROM pf_ranked WHERE is_rel AND rank <= $k
)
SELECT q.system, q.qid, CASE WHEN h.qkey IS NULL THEN CAST(0 AS DOUBLE) ELSE CAST(1 AS DOUBLE) END AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
