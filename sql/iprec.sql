-- Interpolated precision at recall $recall (trec_eval 10 m_iprec_at_recall.c): c = lround($recall *
-- num_rel), computed exactly as floor(x) + (x - floor(x) >= 0.5); the largest precision
-- rel_cum / rank at the relevant documents from the c-th on (c = 0 counts as the first); 0 when
-- fewer than c relevant documents are retrieved.
WITH cut AS (
    SELECT qkey, floor(x) + CASE WHEN x - floor(x) >= CAST(0.5 AS DOUBLE) THEN 1 ELSE 0 END AS c
    FROM (SELECT qkey, $recall * num_rel AS x FROM pf_queries) AS t
),
best AS (
    SELECT r.qkey, max(CAST(r.rel_cum AS DOUBLE) / r.rank) AS iprec
    FROM pf_ranked r JOIN cut c ON r.qkey = c.qkey
    WHERE r.is_rel AND r.rel_cum >= greatest(c.c, 1)
    GROUP BY r.qkey
)
SELECT q.system, q.qid, coalesce(b.iprec, 0) AS value
FROM pf_queries q LEFT JOIN best b ON q.qkey = b.qkey
