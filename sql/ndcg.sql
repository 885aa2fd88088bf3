-- nDCG and nDCG@k (trec_eval m_ndcg.c, m_ndcg_cut.c): DCG = sum gain / log2(rank + 1) over the
-- top $k (whole ranking when $k IS NULL), divided by the same sum over the ideal ranking.
-- $exp_gain: gain 2^grade - 1 instead of the grade. 0 when the ideal DCG is 0. Sums run in rank
-- order, as trec_eval's loops do, so the result does not depend on the input's row order.
WITH dcg AS (
    SELECT system, qid,
           sum(CASE WHEN $exp_gain THEN pow(2, gain) - 1 ELSE gain END / log2(rank + 1) ORDER BY rank) AS dcg
    FROM pf_ranked
    WHERE gain > 0 AND ($k IS NULL OR rank <= $k)
    GROUP BY system, qid
),
idcg AS (
    SELECT qid, sum(CASE WHEN $exp_gain THEN pow(2, gain) - 1 ELSE gain END / log2(irank + 1) ORDER BY irank) AS idcg
    FROM pf_ideal
    WHERE $k IS NULL OR irank <= $k
    GROUP BY qid
)
SELECT q.system, q.qid,
       CASE WHEN coalesce(i.idcg, 0) > 0 THEN coalesce(d.dcg, 0) / i.idcg ELSE 0 END AS value
FROM pf_queries q
LEFT JOIN dcg d ON q.system = d.system AND q.qid = d.qid
LEFT JOIN idcg i ON q.qid = i.qid
