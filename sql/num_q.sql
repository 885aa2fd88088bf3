-- num_q (trec_eval m_num_q.c): 1 per evaluated query; summed over queries.
SELECT system, qid, 1.0 AS value FROM pf_queries
