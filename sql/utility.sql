-- Set utility (trec_eval m_utility.c): w1*a + w2*b + w3*c + w4*d with a = relevant retrieved,
-- b = retrieved - a, c = num_rel - a, d = $collection_size + a - retrieved - num_rel; the weights
-- are the 4 values of the list $weights in pf_lists.
WITH w AS (
    SELECT max(CASE WHEN pos = 1 THEN value END) AS w1, max(CASE WHEN pos = 2 THEN value END) AS w2,
           max(CASE WHEN pos = 3 THEN value END) AS w3, max(CASE WHEN pos = 4 THEN value END) AS w4
    FROM pf_lists WHERE list_key = $weights
),
hits AS (
    SELECT qkey, count(*) AS a FROM pf_ranked WHERE is_rel GROUP BY qkey
),
counts AS (
    SELECT q.system, q.qid, q.num_ret, q.num_rel, coalesce(h.a, 0) AS a
    FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
)
SELECT c.system, c.qid,
       w.w1 * c.a + w.w2 * (c.num_ret - c.a) + w.w3 * (c.num_rel - c.a)
       + w.w4 * ($collection_size + c.a - c.num_ret - c.num_rel) AS value
FROM counts c CROSS JOIN w
