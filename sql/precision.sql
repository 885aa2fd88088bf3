-- P@k (trec_eval m_P.c): relevant documents in the top $k divided by $k.
WITH hits AS (
    SELECT qkey, count(*) AS n FROM pf_ranked WHERE is_rel AND rank <= $k GROUP BY qkey
)
SELECT q.system, q.qid, coalesce(h.n, 0) / $k AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
