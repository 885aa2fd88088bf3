-- yaap (trec_eval m_yaap.c): ln((1 + S) / (1 + R - S)), S the sum of the precisions at the ranks of
-- the retrieved relevant documents (added in rank order, as ap.sql), R = num_rel. 0 when R = 0;
-- ln(1 / (1 + R)) when nothing relevant is retrieved.
WITH hits AS (
    SELECT qkey, pf_seqsum(rel_cum / rank, rank) AS sum_prec
    FROM pf_ranked
    WHERE is_rel
    GROUP BY qkey
),
sums AS (
    SELECT q.system, q.qid, q.num_rel, coalesce(h.sum_prec, CAST(0 AS DOUBLE)) AS s
    FROM pf_queries q LEFT JOIN hits h ON q.qkey = h.qkey
)
SELECT system, qid, ln((CAST(1 AS DOUBLE) + s) / (CAST(1 AS DOUBLE) + CAST(num_rel AS DOUBLE) - s)) AS value
FROM sums
