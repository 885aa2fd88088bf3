-- num_ret (trec_eval m_num_ret.c): retrieved documents after the depth cut; summed over queries.
SELECT system, qid, CAST(num_ret AS DOUBLE) AS value FROM pf_queries
