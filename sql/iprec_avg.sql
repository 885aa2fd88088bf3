-- Interpolated precision averaged over the recall levels listed in pf_lists under $levels
-- (trec_eval 10 m_11pt_avg.c): IPrec at each level as in iprec.sql, added from the highest level
-- down (trec_eval's loop order), divided by the number of levels.
WITH levels AS (
    SELECT pos, value AS recall FROM pf_lists WHERE list_key = $levels
),
cut AS (
    SELECT qkey, pos, recall, floor(x) + CASE WHEN x - floor(x) >= CAST(0.5 AS DOUBLE) THEN 1 ELSE 0 END AS c
    FROM (SELECT q.qkey, l.pos, l.recall, l.recall * q.num_rel AS x
          FROM pf_queries q CROSS JOIN levels l) AS t
),
best AS (
    SELECT c.qkey, c.pos, c.recall, max(CAST(r.rel_cum AS DOUBLE) / r.rank) AS iprec
    FROM cut c JOIN pf_ranked r ON r.qkey = c.qkey
    WHERE r.is_rel AND r.rel_cum >= greatest(c.c, 1)
    GROUP BY c.qkey, c.pos, c.recall
),
total AS (
    SELECT qkey, pf_seqsum(iprec, -recall) AS total FROM best GROUP BY qkey
)
SELECT q.system, q.qid, coalesce(t.total, 0) / (SELECT count(*) FROM levels) AS value
FROM pf_queries q LEFT JOIN total t ON q.qkey = t.qkey
