-- infAP (trec_eval m_infap.c): each relevant retrieved document at rank r adds 1 when r = 1, else
-- 1/r + ((r-1)/r) * (pooled above / (r-1)) * ((rel above + eps) / (rel above + nonrel above + 2 eps))
-- with pooled above = relevant + judged non-relevant + negative-grade documents above r and
-- eps = 0.00001; the sum (in rank order) is divided by num_rel.
WITH terms AS (
    SELECT qkey,
           pf_seqsum(CASE WHEN rank = 1 THEN CAST(1 AS DOUBLE) ELSE
                         CAST(1 AS DOUBLE) / rank
                         + (CAST(rank - 1 AS DOUBLE) / rank)
                           * (CAST(rel_cum - 1 + nonrel_cum + unjudged_cum AS DOUBLE) / (rank - 1))
                           * ((rel_cum - 1 + CAST(0.00001 AS DOUBLE))
                              / ((rel_cum - 1 + nonrel_cum) + 2 * CAST(0.00001 AS DOUBLE)))
                     END, rank) AS total
    FROM pf_ranked WHERE is_rel GROUP BY qkey
)
SELECT q.system, q.qid, CASE WHEN q.num_rel > 0 THEN coalesce(t.total, 0) / q.num_rel ELSE 0 END AS value
FROM pf_queries q LEFT JOIN terms t ON q.qkey = t.qkey
