-- R-precision (trec_eval m_Rprec.c): relevant documents in the top num_rel divided by num_rel.
WITH hits AS (
    SELECT qkey, count(*) AS n FROM pf_ranked WHERE is_rel AND rank <= num_rel GROUP BY qkey
)
SELECT q.system, q.qid,
       CASE WHEN q.num_rel > 0 THEN coalesce(h.n, 0) / q.num_rel ELSE 0 END AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
