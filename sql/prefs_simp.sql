-- m_prefs_simp.c: preferences fulfilled / expressed, over the query's judgment groups; 0 without such preferences.
SELECT system, qid, CASE WHEN poss > 0 THEN ful / poss ELSE 0 END AS value
FROM (
    SELECT system, qid, sum(ful_ret + ful_imp) AS ful, sum(ful_ret + unf_ret + ful_imp + unf_imp + notoccur) AS poss
    FROM pf_pref_jg
    GROUP BY qkey, system, qid
) AS per_query
