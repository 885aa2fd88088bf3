-- Judged@k (ir_measures): documents in the top $k with a qrels line, whatever the grade (ir_measures
-- counts a negative grade as judged; trec_eval's unj does not), divided by min($k, num_ret) (the whole
-- ranking when $k IS NULL); 0 for an empty ranking. pf_ranked holds exactly the documents with a qrels line.
WITH judged AS (
    SELECT qkey, count(*) AS n
    FROM pf_ranked WHERE $k IS NULL OR rank <= $k
    GROUP BY qkey
),
tops AS (
    SELECT system, qid, qkey, CASE WHEN $k IS NULL THEN num_ret ELSE least(num_ret, $k) END AS top FROM pf_queries
)
SELECT t.system, t.qid, CASE WHEN t.top > 0 THEN CAST(coalesce(j.n, 0) AS DOUBLE) / t.top ELSE 0 END AS value
FROM tops t LEFT JOIN judged j ON t.qkey = j.qkey
