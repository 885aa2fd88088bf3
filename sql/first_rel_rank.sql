-- FirstRelRank (pairedframe): the rank of the first relevant document within the top $k; NULL when
-- none is retrieved there.
WITH firsts AS (
    SELECT qkey, min(rank) AS first
    FROM pf_ranked WHERE is_rel AND ($k IS NULL OR rank <= $k) GROUP BY qkey
)
SELECT q.system, q.qid, CAST(f.first AS DOUBLE) AS value
FROM pf_queries q LEFT JOIN firsts f ON q.qkey = f.qkey
