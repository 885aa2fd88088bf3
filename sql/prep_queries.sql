-- Step 2: the evaluated query set, one row per (system, qid), with the counts measures divide by.
-- Reads pf_retrieved (system, qid, n), pf_ranks (system, qid, docno, rank, rel) and pf_qrels
-- (qid, docno, rel).
-- $rel_level:   minimum grade that counts as relevant (trec_eval -l). Negative grades are neither
--               relevant nor judged non-relevant (trec_eval: in the pool but unjudged).
-- $complete:    false = queries both retrieved and judged (trec_eval default);
--               true  = every judged query for every system (trec_eval -c); a query the system
--               did not retrieve is ranked as trec_eval ranks it: one unjudged placeholder
--               document (num_ret 1; 0 with $judged_only, which drops it).
-- $depth:       num_ret counts at most $depth documents (trec_eval -M); NULL = no cut.
-- $judged_only: num_ret counts only the retrieved documents with a grade >= 0 (trec_eval -J).
-- max_grade is the query's largest grade >= 0 (NULL when it has none). qkey: an integer key of the
-- (system, qid), which the measures group and join on (cheaper than two strings).
CREATE OR REPLACE TEMP TABLE pf_queries AS
WITH judged AS (
    SELECT qid,
           count(CASE WHEN rel >= $rel_level THEN 1 END) AS num_rel,
           count(CASE WHEN rel >= 0 AND rel < $rel_level THEN 1 END) AS num_nonrel,
           max(CASE WHEN rel >= 0 THEN rel END) AS max_grade
    FROM pf_qrels
    GROUP BY qid
),
judged_ret AS (
    SELECT system, qid, count(*) AS n
    FROM pf_ranks
    WHERE $judged_only AND rel >= 0 AND ($depth IS NULL OR rank <= $depth)
    GROUP BY system, qid
),
retrieved AS (
    SELECT r.system, r.qid,
           CASE WHEN $judged_only THEN coalesce(j.n, 0)
                WHEN $depth IS NULL THEN r.n ELSE least(r.n, $depth) END AS num_ret
    FROM pf_retrieved r LEFT JOIN judged_ret j ON r.system = j.system AND r.qid = j.qid
)
SELECT system, qid, num_rel, num_nonrel, max_grade, num_ret, row_number() OVER (ORDER BY system, qid) AS qkey
FROM (
    SELECT r.system, j.qid, j.num_rel, j.num_nonrel, j.max_grade, r.num_ret
    FROM retrieved r JOIN judged j ON r.qid = j.qid
    WHERE NOT $complete
    UNION ALL
    SELECT s.system, j.qid, j.num_rel, j.num_nonrel, j.max_grade,
           coalesce(r.num_ret, CASE WHEN $judged_only THEN 0 ELSE 1 END) AS num_ret
    FROM (SELECT DISTINCT system FROM pf_retrieved) s CROSS JOIN judged j
    LEFT JOIN retrieved r ON r.system = s.system AND r.qid = j.qid
    WHERE $complete
) AS evaluated;
