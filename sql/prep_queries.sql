-- Step 1: the evaluated query set, one row per (system, qid), with the counts measures divide by.
-- Reads pf_retrieved (system, qid, n) and pf_qrels (qid, docno, rel).
-- $rel_level: minimum grade that counts as relevant (trec_eval -l). Negative grades are neither
--             relevant nor judged non-relevant (trec_eval: in the pool but unjudged).
-- $complete:  false = queries both retrieved and judged (trec_eval default);
--             true  = every judged query for every system (trec_eval -c).
-- $depth:     num_ret counts at most $depth documents (trec_eval -M); NULL = no cut.
CREATE OR REPLACE TEMP TABLE pf_queries AS
WITH judged AS (
    SELECT qid,
           count(*) FILTER (WHERE rel >= $rel_level) AS num_rel,
           count(*) FILTER (WHERE rel >= 0 AND rel < $rel_level) AS num_nonrel
    FROM pf_qrels
    GROUP BY qid
)
SELECT r.system, j.qid, j.num_rel, j.num_nonrel,
       CASE WHEN $depth IS NULL THEN r.n ELSE least(r.n, $depth) END AS num_ret
FROM pf_retrieved r JOIN judged j USING (qid)
WHERE NOT $complete
UNION ALL
SELECT s.system, j.qid, j.num_rel, j.num_nonrel,
       CASE WHEN $depth IS NULL THEN coalesce(r.n, 0) ELSE least(coalesce(r.n, 0), $depth) END AS num_ret
FROM (SELECT DISTINCT system FROM pf_retrieved) s CROSS JOIN judged j
LEFT JOIN pf_retrieved r ON r.system = s.system AND r.qid = j.qid
WHERE $complete;
