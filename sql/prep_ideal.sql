-- Step 3: the ideal ranking of each evaluated query: its positive grades from the qrels, sorted
-- descending (judged documents, retrieved or not: TREC nDCG takes the ideal from the qrels).
CREATE OR REPLACE TEMP TABLE pf_ideal AS
SELECT qid,
       row_number() OVER (PARTITION BY qid ORDER BY rel DESC) AS irank,
       CAST(rel AS DOUBLE) AS gain
FROM pf_qrels
WHERE rel > 0 AND qid IN (SELECT DISTINCT qid FROM pf_queries);
