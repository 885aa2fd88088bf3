-- ERR@k as gdeval computes it: sum over ranks r <= $k of R(g_r) * decay(r) / r, R(g) = (2^g - 1) / 16
-- for grades 0..4, decay(r) = product over documents above r of (1 - R(g)), taken as
-- (15/16)^n1 * (13/16)^n2 * (9/16)^n3 * (1/16)^n4 with n_g the documents of grade g above r.
WITH counted AS (
    SELECT qkey, rank, rel,
           sum(CASE WHEN rel = 1 THEN 1 ELSE 0 END) OVER w - CASE WHEN rel = 1 THEN 1 ELSE 0 END AS n1,
           sum(CASE WHEN rel = 2 THEN 1 ELSE 0 END) OVER w - CASE WHEN rel = 2 THEN 1 ELSE 0 END AS n2,
           sum(CASE WHEN rel = 3 THEN 1 ELSE 0 END) OVER w - CASE WHEN rel = 3 THEN 1 ELSE 0 END AS n3,
           sum(CASE WHEN rel = 4 THEN 1 ELSE 0 END) OVER w - CASE WHEN rel = 4 THEN 1 ELSE 0 END AS n4
    FROM pf_ranked
    WINDOW w AS (PARTITION BY qkey ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
terms AS (
    SELECT qkey, rank,
           (pow(2, rel) - 1) / 16
           * (pow(CAST(15 AS DOUBLE) / 16, n1) * pow(CAST(13 AS DOUBLE) / 16, n2)
              * pow(CAST(9 AS DOUBLE) / 16, n3) * pow(CAST(1 AS DOUBLE) / 16, n4))
           / rank AS term
    FROM counted
    WHERE rel > 0 AND ($k IS NULL OR rank <= $k)
)
SELECT q.system, q.qid, coalesce(t.total, 0) AS value
FROM pf_queries q
LEFT JOIN (SELECT qkey, pf_seqsum(term, rank) AS total FROM terms GROUP BY qkey) t
       ON q.qkey = t.qkey
