-- Number of preferences fulfilled (m_prefs_num_prefs_ful.c), per query, over its judgment groups (pf_pref_jg).
SELECT system, qid, sum(ful_ret + ful_imp) AS value
FROM pf_pref_jg
GROUP BY qkey, system, qid
