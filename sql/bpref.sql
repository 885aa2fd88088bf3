-- bpref (trec_eval m_bpref.c): for each retrieved relevant document with n judged non-relevant
-- documents above it, add 1 - min(n, R) / min(N, R) (1 when n = 0); divide by R = num_rel.
-- N = num_nonrel (0 <= grade < level). Unjudged documents and negative grades are skipped.
WITH terms AS (
    SELECT qkey,
           pf_seqsum(CASE WHEN nonrel_cum > 0
                          THEN 1 - CAST(least(nonrel_cum, num_rel) AS DOUBLE) / least(num_nonrel, num_rel)
                          ELSE CAST(1 AS DOUBLE) END, rank) AS total
    FROM pf_ranked WHERE is_rel GROUP BY qkey
)
SELECT q.system, q.qid,
       CASE WHEN q.num_rel > 0 THEN coalesce(t.total, 0) / q.num_rel ELSE 0 END AS value
FROM pf_queries q LEFT JOIN terms t ON q.qkey = t.qkey
