-- num_q (trec_eval m_num_q.c): 1 per evaluated query; summed over queries.
SELECT system, qid, CAST(1 AS DOUBLE) AS value FROM pf_queries
