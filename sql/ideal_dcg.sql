-- ideal_dcg (trec_eval m_ndcg.c, te_meas_ideal_dcg): the DCG of the ideal ranking of the gain map
-- $gain_map (pf_ideal: the judged documents' positive gains, descending), added in ideal-rank order;
-- 0 without a positive gain. The denominator of ndcg; it does not depend on the run.
WITH idcg AS (
    SELECT qid, pf_seqsum(gain / log2(irank + 1), irank) AS idcg
    FROM pf_ideal
    WHERE gain_map = $gain_map
    GROUP BY qid
)
SELECT q.system, q.qid, coalesce(i.idcg, 0) AS value
FROM pf_queries q
LEFT JOIN idcg i ON q.qid = i.qid
