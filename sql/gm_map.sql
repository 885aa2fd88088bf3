-- gm_map (trec_eval m_gm_map.c): average precision floored at MIN_GEO_MEAN = 0.00001. The summary
-- is the geometric mean of these values (pairedframe.evaluation adds their logs in query order).
WITH hits AS (
    SELECT qkey, pf_seqsum(rel_cum / rank, rank) AS sum_prec
    FROM pf_ranked WHERE is_rel GROUP BY qkey
)
SELECT q.system, q.qid,
       greatest(CASE WHEN q.num_rel > 0 THEN coalesce(h.sum_prec, 0) / q.num_rel ELSE 0 END,
                CAST(0.00001 AS DOUBLE)) AS value
FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
