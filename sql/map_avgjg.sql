-- map_avgjg (trec_eval m_map_avgjg.c): average precision against each judgment group's qrels (0 for
-- a group without a relevant document retrieved), added in group order and divided by the groups.
WITH ap AS (
    SELECT gkey, pf_seqsum(rel_cum / rank, rank) AS sum_prec
    FROM pf_jg_ranked WHERE is_rel GROUP BY gkey
),
per_group AS (
    SELECT g.qkey, g.system, g.qid, g.jg, g.n_jgs,
           CASE WHEN a.sum_prec IS NULL THEN 0 ELSE a.sum_prec / g.num_rel END AS value
    FROM pf_jg_queries g LEFT JOIN ap a ON a.gkey = g.gkey
)
SELECT system, qid, pf_seqsum(value, jg) / max(n_jgs) AS value
FROM per_group
GROUP BY qkey, system, qid
