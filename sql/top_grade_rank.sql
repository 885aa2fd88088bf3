-- TopGradeRank (pairedframe): the rank of the first document with the query's highest grade
-- (max_grade > 0) within the top $k; NULL when none is retrieved there.
WITH firsts AS (
    SELECT qkey, min(rank) AS first
    FROM pf_ranked WHERE max_grade > 0 AND rel = max_grade AND ($k IS NULL OR rank <= $k)
    GROUP BY qkey
)
SELECT q.system, q.qid, CAST(f.first AS DOUBLE) AS value
FROM pf_queries q LEFT JOIN firsts f ON q.qkey = f.qkey
