-- Precision at $mult times R (trec_eval m_Rprec_mult.c): relevant documents in the top
-- c = floor($mult * num_rel + 0.9) divided by c (missing ranks count as non-relevant); 0 when c = 0.
WITH cut AS (
    SELECT system, qid, qkey, floor($mult * num_rel + CAST(0.9 AS DOUBLE)) AS c FROM pf_queries
),
hits AS (
    SELECT r.qkey, count(*) AS n
    FROM pf_ranked r JOIN cut c ON r.qkey = c.qkey
    WHERE r.is_rel AND r.rank <= c.c
    GROUP BY r.qkey
)
SELECT c.system, c.qid, CASE WHEN c.c > 0 THEN coalesce(h.n, 0) / c.c ELSE 0 END AS value
FROM cut c LEFT JOIN hits h ON c.qkey = h.qkey
