-- Number of preferences between retrieved documents fulfilled (m_prefs_num_prefs_ful_ret.c), per query, over its judgment groups (pf_pref_jg).
SELECT system, qid, sum(ful_ret) AS value
FROM pf_pref_jg
GROUP BY qkey, system, qid
