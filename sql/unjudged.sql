-- unj@k (trec_eval 10 m_unjudged.c): documents in the top $k without a grade >= 0, divided by $k;
-- ranks beyond the ranking count as judged.
WITH judged AS (
    SELECT qkey, count(*) AS n FROM pf_ranked WHERE is_judged AND rank <= $k GROUP BY qkey
)
SELECT q.system, q.qid, CAST(least(q.num_ret, $k) - coalesce(j.n, 0) AS DOUBLE) / $k AS value
FROM pf_queries q LEFT JOIN judged j ON q.qkey = j.qkey
