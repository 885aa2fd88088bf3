-- num_rel (trec_eval m_num_rel.c): relevant documents in the qrels, retrieved or not; summed.
SELECT system, qid, CAST(num_rel AS DOUBLE) AS value FROM pf_queries
