-- m_prefs_simp_ret.c: the same over preferences between retrieved documents, over the query's judgment groups; 0 without such preferences.
SELECT system, qid, CASE WHEN poss > 0 THEN ful / poss ELSE 0 END AS value
FROM (
    SELECT system, qid, sum(ful_ret) AS ful, sum(ful_ret + unf_ret) AS poss
    FROM pf_pref_jg
    GROUP BY qkey, system, qid
) AS per_query
