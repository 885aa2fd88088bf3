-- num_rel_ret (trec_eval m_num_rel_ret.c): relevant documents retrieved; summed over queries.
WITH n AS (SELECT qkey, count(*) AS n FROM pf_ranked WHERE is_rel GROUP BY qkey)
SELECT q.system, q.qid, CAST(coalesce(n.n, 0) AS DOUBLE) AS value
FROM pf_queries q LEFT JOIN n ON q.qkey = n.qkey
