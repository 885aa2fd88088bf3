-- set_map (trec_eval m_set_map.c): a * a / (retrieved * num_rel), a = relevant retrieved.
WITH hits AS (SELECT qkey, count(*) AS a FROM pf_ranked WHERE is_rel GROUP BY qkey)
SELECT q.system, q.qid,
       CASE WHEN q.num_ret > 0 AND q.num_rel > 0
            THEN (CAST(coalesce(h.a, 0) AS DOUBLE) * CAST(coalesce(h.a, 0) AS DOUBLE))
                 / (CAST(q.num_ret AS DOUBLE) * CAST(q.num_rel AS DOUBLE))
            ELSE 0 END AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
