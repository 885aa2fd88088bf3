-- Step 4 as prep_ideal.sql, from pf_ideal_given (qid, gain_map, irank, gain): the ideal rankings the
-- engine built from each query's count of each gain (pairedframe.engines.ranking.ideal_gains), so
-- no window sorts the judgments; kept for the evaluated queries only, as prep_ideal.sql keeps them.
CREATE OR REPLACE TEMP TABLE pf_ideal AS
SELECT qid, gain_map, irank, gain
FROM pf_ideal_given
WHERE qid IN (SELECT qid FROM pf_queries);
