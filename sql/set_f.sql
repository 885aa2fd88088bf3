-- set_F (trec_eval m_set_F.c): ($beta + 1) * P * R / ($beta * P + R) with P = a / retrieved and
-- R = a / num_rel (a = relevant retrieved); 0 when a = 0.
WITH hits AS (SELECT system, qid, count(*) AS a FROM pf_ranked WHERE is_rel GROUP BY system, qid),
pr AS (
    SELECT h.system, h.qid, CAST(h.a AS DOUBLE) / q.num_ret AS p, CAST(h.a AS DOUBLE) / q.num_rel AS r
    FROM hits h JOIN pf_queries q ON q.system = h.system AND q.qid = h.qid
)
SELECT q.system, q.qid,
       CASE WHEN pr.p IS NULL THEN 0 ELSE ($beta + 1) * pr.p * pr.r / ($beta * pr.p + pr.r) END AS value
FROM pf_queries q LEFT JOIN pr ON q.system = pr.system AND q.qid = pr.qid
