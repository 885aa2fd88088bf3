-- m_prefs_avgjg_ret.c: per judgment group, preferences between retrieved documents fulfilled / expressed
-- (0 without preferences), added in judgment-group order and divided by the number of groups.
WITH per_group AS (
    SELECT qkey, system, qid, jg, n_jgs, ful_ret AS ful, ful_ret + unf_ret AS poss
    FROM pf_pref_jg
),
summed AS (
    SELECT system, qid, max(n_jgs) AS n_jgs,
           pf_seqsum(CASE WHEN poss > 0 THEN ful / poss ELSE 0 END, jg) AS total
    FROM per_group
    GROUP BY qkey, system, qid
)
SELECT system, qid, CASE WHEN total > 0 THEN total / n_jgs ELSE 0 END AS value
FROM summed
