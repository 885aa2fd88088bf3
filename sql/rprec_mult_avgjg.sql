-- Rprec_mult_avgjg_m (trec_eval m_Rprec_mult_avgjg.c): per judgment group, relevant documents in the
-- top c = floor($mult * num_rel + 0.9) / c (0 when c = 0), added in group order and divided by the groups.
WITH cut AS (
    SELECT gkey, floor($mult * num_rel + CAST(0.9 AS DOUBLE)) AS c FROM pf_jg_queries
),
hits AS (
    SELECT r.gkey, count(*) AS n
    FROM pf_jg_ranked r JOIN cut c ON c.gkey = r.gkey
    WHERE r.is_rel AND r.rank <= c.c
    GROUP BY r.gkey
),
per_group AS (
    SELECT g.qkey, g.system, g.qid, g.jg, g.n_jgs,
           CASE WHEN c.c > 0 THEN coalesce(h.n, 0) / c.c ELSE 0 END AS value
    FROM pf_jg_queries g JOIN cut c ON c.gkey = g.gkey LEFT JOIN hits h ON h.gkey = g.gkey
)
SELECT system, qid, pf_seqsum(value, jg) / max(n_jgs) AS value
FROM per_group
GROUP BY qkey, system, qid
