-- set_P (trec_eval m_set_P.c): relevant retrieved / retrieved; 0 for an empty ranking.
WITH hits AS (SELECT qkey, count(*) AS a FROM pf_ranked WHERE is_rel GROUP BY qkey)
SELECT q.system, q.qid, CASE WHEN q.num_ret > 0 THEN CAST(coalesce(h.a, 0) AS DOUBLE) / q.num_ret ELSE 0 END AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
