-- Number of preferences expressed (m_prefs_num_prefs_poss.c), per query, over its judgment groups (pf_pref_jg).
SELECT system, qid, sum(ful_ret + unf_ret + ful_imp + unf_imp + notoccur) AS value
FROM pf_pref_jg
GROUP BY qkey, system, qid
