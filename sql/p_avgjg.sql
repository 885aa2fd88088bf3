-- P_avgjg_k (trec_eval m_P_avgjg.c): relevant documents in the top $k of each judgment group's
-- qrels / $k, added in group order and divided by the groups.
WITH hits AS (
    SELECT gkey, count(*) AS n FROM pf_jg_ranked WHERE is_rel AND rank <= $k GROUP BY gkey
),
per_group AS (
    SELECT g.qkey, g.system, g.qid, g.jg, g.n_jgs, coalesce(h.n, 0) / $k AS value
    FROM pf_jg_queries g LEFT JOIN hits h ON h.gkey = g.gkey
)
SELECT system, qid, pf_seqsum(value, jg) / max(n_jgs) AS value
FROM per_group
GROUP BY qkey, system, qid
