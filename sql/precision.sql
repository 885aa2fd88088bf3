-- P@k (trec_eval m_P.c): relevant documents in the top $k divided by $k.
WITH hits AS (
    SELECT system, qid, count(*) AS n FROM pf_ranked WHERE is_rel AND rank <= $k GROUP BY system, qid
)
SELECT q.system, q.qid, coalesce(h.n, 0) / $k AS value
FROM pf_queries q LEFT JOIN hits h ON q.system = h.system AND q.qid = h.qid
