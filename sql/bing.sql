-- binG (trec_eval m_binG.c): each retrieved relevant document adds 1 / log2(2 + rank - rel_cum)
-- (rank - rel_cum = documents above it that are not relevant); divided by num_rel.
WITH terms AS (
    SELECT qkey, pf_seqsum(CAST(1 AS DOUBLE) / log2(2 + rank - rel_cum), rank) AS total
    FROM pf_ranked WHERE is_rel GROUP BY qkey
)
SELECT q.system, q.qid, CASE WHEN q.num_rel > 0 THEN coalesce(t.total, 0) / q.num_rel ELSE 0 END AS value
FROM pf_queries q LEFT JOIN terms t ON q.qkey = t.qkey
