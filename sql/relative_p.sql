-- relative_P@k (trec_eval m_rel_P.c): relevant documents in the top $k divided by min($k, num_rel);
-- 0 when num_rel = 0.
WITH hits AS (
    SELECT qkey, count(*) AS n FROM pf_ranked WHERE is_rel AND rank <= $k GROUP BY qkey
)
SELECT q.system, q.qid,
       CASE WHEN q.num_rel > 0 THEN CAST(coalesce(h.n, 0) AS DOUBLE) / least($k, q.num_rel) ELSE 0 END AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
