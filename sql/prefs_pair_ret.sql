-- m_prefs_pair_ret.c: the pairs of two retrieved documents: per unordered pair of docid ranks (i < j), the
-- judgment groups fulfilling the preference (the earlier or only retrieved document preferred) /
-- the groups ordering the pair; the mean over the pairs, added in trec_eval's order (pairs of two
-- retrieved documents first, then by i, then by j: one key, as docid ranks are below 2^21). 0 without pairs.
WITH per_pair AS (
    SELECT qkey, least(da, db) AS i, greatest(da, db) AS j, max(njr) AS njr, count(*) AS tot,
           count(CASE WHEN da < njr AND (da < db OR db >= njr) THEN 1 END) AS ful
    FROM pf_pref_ranked
    GROUP BY qkey, least(da, db), greatest(da, db)
),
summed AS (
    SELECT qkey, count(*) AS n,
           pf_seqsum(ful / tot, CASE WHEN j >= njr THEN 4398046511104 ELSE 0 END + i * 2097152 + j) AS total
    FROM per_pair
    WHERE j < njr
    GROUP BY qkey
)
SELECT q.system, q.qid, CASE WHEN s.n > 0 THEN s.total / s.n ELSE 0 END AS value
FROM pf_queries q LEFT JOIN summed s ON s.qkey = q.qkey
