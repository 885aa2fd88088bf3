-- nDCG and nDCG@k (trec_eval m_ndcg.c, m_ndcg_cut.c): DCG = sum gain / log2(rank + 1) over the
-- top $k (whole ranking when $k IS NULL), divided by the same sum over the ideal ranking of the
-- gain map $gain_map (pf_gains / pf_ideal). 0 when the ideal DCG is 0. Sums run in rank order, as
-- trec_eval's loops do, so the result does not depend on the input's row order.
WITH dcg AS (
    SELECT r.qkey, pf_seqsum(g.gain / log2(r.rank + 1), r.rank) AS dcg
    FROM pf_ranked r JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    WHERE g.gain <> 0 AND ($k IS NULL OR r.rank <= $k)
    GROUP BY r.qkey
),
idcg AS (
    SELECT qid, pf_seqsum(gain / log2(irank + 1), irank) AS idcg
    FROM pf_ideal
    WHERE gain_map = $gain_map AND ($k IS NULL OR irank <= $k)
    GROUP BY qid
)
SELECT q.system, q.qid,
       CASE WHEN coalesce(i.idcg, 0) > 0 THEN coalesce(d.dcg, 0) / i.idcg ELSE 0 END AS value
FROM pf_queries q
LEFT JOIN dcg d ON q.qkey = d.qkey
LEFT JOIN idcg i ON q.qid = i.qid
