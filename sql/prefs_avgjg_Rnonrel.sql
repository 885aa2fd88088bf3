-- prefs_avgjg_Rnonrel (m_prefs_avgjg_Rnonrel.c): prefs_avgjg with R non-relevant documents per judgment group
-- (R relevant, N non-relevant documents of the group); see pairedframe.measures.prefs_rnonrel for trec_eval's recount when R < N, whose quirks
-- this keeps. A group whose count is 0 / 0 (C's NaN) makes the query's value 0.
WITH g AS (
    SELECT *, n_rel AS r, n_rel < n_nonrel AS recalc, n_rel - n_nonrel AS extra FROM pf_pref_jg
),
members AS (
    SELECT m.qkey, m.g, m.did, m.nonrel, m.low, m.njr, g.ec, g.r, g.n_rel, g.n_docs, g.n_docs_ret,
           row_number() OVER (PARTITION BY m.qkey, m.g ORDER BY m.did) - 1 AS pos
    FROM pf_pref_ranked_members m JOIN g ON g.qkey = m.qkey AND g.g = m.g
    WHERE g.recalc
),
lowest AS (
    SELECT qkey, g, did, pos, r, n_docs_ret, njr, row_number() OVER (PARTITION BY qkey, g ORDER BY did) AS k
    FROM members WHERE ec AND low
),
against AS (  -- one sub-group: every member against the kept documents of the lowest class
    SELECT qkey, g, count(*) AS n_kept, sum(least(pos, n_docs_ret)) AS ful
    FROM lowest WHERE k <= r
    GROUP BY qkey, g
),
pairs AS (
    SELECT p.qkey, p.g, p.da, p.db, p.njr, g.ec
    FROM pf_pref_ranked p JOIN g ON g.qkey = p.qkey AND g.g = p.g
    WHERE g.recalc
),
above AS (    -- one sub-group: the preferences whose lower document is above the lowest class
    SELECT p.qkey, p.g, count(*) AS poss,
           count(CASE WHEN p.da < p.njr AND (p.da < p.db OR p.db >= p.njr) THEN 1 END) AS ful
    FROM pairs p LEFT JOIN lowest l ON l.qkey = p.qkey AND l.g = p.g AND l.did = p.db
    WHERE p.ec AND l.did IS NULL
    GROUP BY p.qkey, p.g
),
left_out AS ( -- several sub-groups: the non-relevant documents after the group's n_rel-th
    SELECT qkey, g, did FROM (
        SELECT qkey, g, did, n_rel, row_number() OVER (PARTITION BY qkey, g ORDER BY did) AS k
        FROM members WHERE NOT ec AND nonrel
    ) AS ranked_nonrel
    WHERE k > n_rel
),
kept_pairs AS (
    SELECT p.qkey, p.g, count(*) AS poss,
           count(CASE WHEN p.da < p.njr AND (p.da < p.db OR p.db >= p.njr) THEN 1 END) AS ful
    FROM pairs p
    LEFT JOIN left_out oa ON oa.qkey = p.qkey AND oa.g = p.g AND oa.did = p.da
    LEFT JOIN left_out ob ON ob.qkey = p.qkey AND ob.g = p.g AND ob.did = p.db
    WHERE NOT p.ec AND oa.did IS NULL AND ob.did IS NULL
    GROUP BY p.qkey, p.g
),
counted AS (
    SELECT g.qkey, g.system, g.qid, g.jg, g.n_jgs,
           CASE WHEN NOT g.recalc THEN g.ful_ret + g.ful_imp + g.n_rel_ret * g.extra
                WHEN g.ec THEN coalesce(a.ful, 0) + coalesce(k.ful, 0)
                ELSE coalesce(kp.ful, 0) END AS ful,
           CASE WHEN NOT g.recalc THEN g.ful_ret + g.unf_ret + g.ful_imp + g.unf_imp + g.notoccur + g.n_rel * g.extra
                WHEN g.ec THEN coalesce(a.poss, 0) + g.n_docs * coalesce(k.n_kept, 0)
                ELSE coalesce(kp.poss, 0) END AS poss
    FROM g
    LEFT JOIN above a ON a.qkey = g.qkey AND a.g = g.g
    LEFT JOIN against k ON k.qkey = g.qkey AND k.g = g.g
    LEFT JOIN kept_pairs kp ON kp.qkey = g.qkey AND kp.g = g.g
),
summed AS (
    SELECT system, qid, max(n_jgs) AS n_jgs, count(*) - count(CASE WHEN poss > 0 THEN 1 END) AS n_nan,
           pf_seqsum(CASE WHEN poss > 0 THEN ful / poss END, jg) AS total
    FROM counted
    GROUP BY qkey, system, qid
)
SELECT system, qid, CASE WHEN n_nan = 0 AND total > 0 THEN total / n_jgs ELSE 0 END AS value
FROM summed
