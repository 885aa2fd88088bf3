-- rbp_resid (trec_eval 10 m_rbp_resid.c): when some of the num_ret retrieved documents are unjudged
-- (no grade >= 0: a negative grade, or not in the qrels and so not in pf_ranked), $p^num_ret +
-- (1 - $p) * (sum of $p^(r - 1) over the unjudged ranks r, added in rank order), else 0. $p^k is
-- pf_discounts' d (repeated products, as trec_eval's loop: pow differs in the last bit for some k);
-- the sum walks every rank 1..num_ret (k = r - 1 < num_ret) and keeps those with no judged row.
WITH judged AS (
    SELECT qkey, rank FROM pf_ranked WHERE is_judged
),
counted AS (
    SELECT qkey, count(*) AS n FROM judged GROUP BY qkey
),
unjudged AS (
    SELECT q.qkey, pf_seqsum(d.d, d.k) AS mass
    FROM pf_queries q
    JOIN pf_discounts d ON d.p = $p AND d.k < q.num_ret
    LEFT JOIN judged j ON j.qkey = q.qkey AND j.rank = d.k + 1
    WHERE j.qkey IS NULL
    GROUP BY q.qkey
)
SELECT q.system, q.qid,
       CASE WHEN q.num_ret > coalesce(c.n, 0) THEN f.d + (1 - $p) * u.mass ELSE 0 END AS value
FROM pf_queries q
LEFT JOIN counted c ON c.qkey = q.qkey
LEFT JOIN unjudged u ON u.qkey = q.qkey
LEFT JOIN pf_discounts f ON f.p = $p AND f.k = q.num_ret
