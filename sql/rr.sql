-- RR and RR@k (trec_eval m_recip_rank.c): 1 / rank of the first relevant document within the top
-- $k (whole ranking when $k IS NULL); 0 when none.
WITH first_hit AS (
    SELECT qkey, min(rank) AS r
    FROM pf_ranked WHERE is_rel AND ($k IS NULL OR rank <= $k) GROUP BY qkey
)
SELECT q.system, q.qid, coalesce(CAST(1 AS DOUBLE) / f.r, 0) AS value
FROM pf_queries q LEFT JOIN first_hit f ON q.qkey = f.qkey
