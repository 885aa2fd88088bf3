-- num_nonrel_judged_ret (trec_eval m_num_nonrel_judged_ret.c): judged non-relevant documents
-- retrieved (0 <= grade < level); summed over queries.
WITH n AS (SELECT qkey, count(*) AS n FROM pf_ranked WHERE is_judged_nonrel GROUP BY qkey)
SELECT q.system, q.qid, CAST(coalesce(n.n, 0) AS DOUBLE) AS value
FROM pf_queries q LEFT JOIN n ON q.qkey = n.qkey
