-- AP and AP@k (trec_eval m_map.c, m_map_cut.c): sum of precision at each relevant rank <= $k,
-- divided by all relevant documents of the query (num_rel). 0 when num_rel = 0.
WITH hits AS (
    SELECT qkey, pf_seqsum(rel_cum / rank, rank) AS sum_prec
    FROM pf_ranked
    WHERE is_rel AND ($k IS NULL OR rank <= $k)
    GROUP BY qkey
)
SELECT q.system, q.qid,
       CASE WHEN q.num_rel > 0 THEN coalesce(h.sum_prec, 0) / q.num_rel ELSE 0 END AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
