-- relstring (trec_eval m_relstring.c): one character per rank r <= min($k, num_ret): the grade 0-9,
-- '>' above 9, '.' for a negative grade, '-' for a document not in the qrels (the ranks between
-- rows of pf_ranked). Returns system, qid, text.
WITH rows AS (
    SELECT r.qkey, r.rank, r.rel,
           coalesce(lag(r.rank) OVER (PARTITION BY r.qkey ORDER BY r.rank), 0) AS previous
    FROM pf_ranked r
    WHERE r.rank <= $k
),
pieces AS (
    SELECT qkey, rank,
           repeat('-', CAST(rank - previous - 1 AS INTEGER))
           || CASE WHEN rel > 9 THEN '>' WHEN rel >= 0 THEN CAST(rel AS VARCHAR) ELSE '.' END AS piece
    FROM rows
),
strings AS (
    SELECT qkey, pf_concat(piece, rank) AS body, max(rank) AS last FROM pieces GROUP BY qkey
)
SELECT q.system, q.qid,
       coalesce(s.body, '') || repeat('-', CAST(least($k, q.num_ret) - coalesce(s.last, 0) AS INTEGER)) AS text
FROM pf_queries q LEFT JOIN strings s ON q.qkey = s.qkey
