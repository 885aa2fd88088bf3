-- Step 4: the ideal ranking of each evaluated query under each gain map in use: the gains of its
-- judged documents (grade >= 0, retrieved or not: TREC nDCG takes the ideal from the qrels) that
-- are > 0, sorted descending. Reads pf_gains (gain_map, rel, gain, explicit): the gain of each
-- grade under each map ('' = the grade, 'exp' = 2^grade - 1, 'map:...' = trec_eval's
-- rel_level=gain pairs), filled by the engine.
CREATE OR REPLACE TEMP TABLE pf_ideal AS
WITH mapped AS (
    SELECT j.qid, g.gain_map, g.gain
    FROM pf_qrels j JOIN pf_gains g ON g.rel = j.rel
    WHERE j.rel >= 0 AND g.gain > 0 AND j.qid IN (SELECT qid FROM pf_queries)
)
SELECT qid, gain_map, row_number() OVER (PARTITION BY qid, gain_map ORDER BY gain DESC) AS irank, gain
FROM mapped;
