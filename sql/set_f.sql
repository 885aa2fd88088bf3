-- set_F (trec_eval m_set_F.c): ($beta + 1) * P * R / ($beta * P + R) with P = a / retrieved and
-- R = a / num_rel (a = relevant retrieved); 0 when a = 0.
WITH hits AS (SELECT qkey, count(*) AS a FROM pf_ranked WHERE is_rel GROUP BY qkey),
pr AS (
    SELECT h.qkey, CAST(h.a AS DOUBLE) / q.num_ret AS p, CAST(h.a AS DOUBLE) / q.num_rel AS r
    FROM hits h JOIN pf_queries q ON q.qkey = h.qkey
)
SELECT q.system, q.qid,
       CASE WHEN pr.p IS NULL THEN 0 ELSE ($beta + 1) * pr.p * pr.r / ($beta * pr.p + pr.r) END AS value
FROM pf_queries q LEFT JOIN pr ON q.qkey = pr.qkey
