-- gm_bpref (trec_eval m_gm_bpref.c): bpref (see bpref.sql) floored at MIN_GEO_MEAN = 0.00001; the
-- summary is the geometric mean of these values.
WITH terms AS (
    SELECT qkey,
           pf_seqsum(CASE WHEN nonrel_cum > 0
                          THEN 1 - CAST(least(nonrel_cum, num_rel) AS DOUBLE) / least(num_nonrel, num_rel)
                          ELSE CAST(1 AS DOUBLE) END, rank) AS total
    FROM pf_ranked WHERE is_rel GROUP BY qkey
)
SELECT q.system, q.qid,
       greatest(CASE WHEN q.num_rel > 0 THEN coalesce(t.total, 0) / q.num_rel ELSE 0 END,
                CAST(0.00001 AS DOUBLE)) AS value
FROM pf_queries q LEFT JOIN terms t ON q.qkey = t.qkey
