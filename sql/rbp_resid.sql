-- rbp_resid (trec_eval 10 m_rbp_resid.c): when some of the num_ret retrieved documents are unjudged
-- (no grade >= 0), $p^num_ret + (1 - $p) * (sum of $p^(r - 1) over the unjudged ranks r), else 0.
-- The sum over unjudged ranks is the geometric series over all ranks minus the judged ranks
-- (added in rank order).
WITH judged AS (
    SELECT qkey, count(*) AS n, pf_seqsum(pow($p, rank - 1), rank) AS mass
    FROM pf_ranked WHERE is_judged GROUP BY qkey
),
parts AS (
    SELECT q.system, q.qid, q.num_ret, coalesce(j.n, 0) AS n_judged, coalesce(j.mass, 0) AS judged_mass,
           CASE WHEN $p = 1 THEN CAST(q.num_ret AS DOUBLE) ELSE (1 - pow($p, q.num_ret)) / (1 - $p) END AS every
    FROM pf_queries q LEFT JOIN judged j ON q.qkey = j.qkey
)
SELECT system, qid,
       CASE WHEN num_ret > n_judged THEN pow($p, num_ret) + (1 - $p) * (every - judged_mass) ELSE 0 END AS value
FROM parts
