-- dcg (trec_eval m_ndcg.c, te_meas_dcg): sum of gain / log2(rank + 1) over the whole ranking under
-- the gain map $gain_map (pf_gains), added in rank order as trec_eval's loop adds; 0 when nothing
-- with a non-zero gain is retrieved. The numerator of ndcg.
WITH dcg AS (
    SELECT r.qkey, pf_seqsum(g.gain / log2(r.rank + 1), r.rank) AS dcg
    FROM pf_ranked r JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    WHERE g.gain <> 0
    GROUP BY r.qkey
)
SELECT q.system, q.qid, coalesce(d.dcg, 0) AS value
FROM pf_queries q
LEFT JOIN dcg d ON q.qkey = d.qkey
