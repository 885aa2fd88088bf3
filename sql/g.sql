-- G (trec_eval m_G.c) under the gain map $gain_map: each retrieved document with gain g != 0 at
-- rank r adds g / log2(2 + cost(r) - gained(r)); gained(r) = gain retrieved at ranks <= r,
-- cost(r) = sum over ideal ranks <= min(r, L) of max(ideal gain, 1), plus 1 per rank beyond the L
-- ideal ones. Divided by the total ideal gain. trec_eval adds in rank order; when $exact_gains
-- (every gain a multiple of 2^-20 below 2^20, as the grades are) every order of addition gives
-- the same double, so window sums do; otherwise the sums are added in rank order (pf_seqsum).
WITH ideal AS (
    SELECT qid, irank, gain FROM pf_ideal WHERE gain_map = $gain_map
),
ideal_total AS (
    SELECT qid, count(*) AS ideal_len, pf_seqsum(gain, irank) AS ideal_gain FROM ideal GROUP BY qid
),
scored AS (
    SELECT r.qkey, r.qid, r.rank, g.gain
    FROM pf_ranked r JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    WHERE g.gain <> 0
),
gained AS (
    SELECT qkey, qid, rank, gain,
           sum(gain) OVER (PARTITION BY qkey ORDER BY rank
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS gained
    FROM scored WHERE $exact_gains
    UNION ALL
    SELECT a.qkey, a.qid, a.rank, a.gain, pf_seqsum(b.gain, b.rank) AS gained
    FROM (SELECT * FROM scored WHERE NOT $exact_gains) a
    JOIN scored b ON a.qkey = b.qkey AND b.rank <= a.rank
    GROUP BY a.qkey, a.qid, a.rank, a.gain
),
cost_prefix AS (
    SELECT qid, irank,
           sum(greatest(gain, CAST(1 AS DOUBLE))) OVER (PARTITION BY qid ORDER BY irank
                                                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cost
    FROM ideal WHERE $exact_gains
    UNION ALL
    SELECT a.qid, a.irank, pf_seqsum(greatest(b.gain, CAST(1 AS DOUBLE)), b.irank) AS cost
    FROM (SELECT * FROM ideal WHERE NOT $exact_gains) a JOIN ideal b ON a.qid = b.qid AND b.irank <= a.irank
    GROUP BY a.qid, a.irank
),
total AS (
    SELECT d.qkey,
           pf_seqsum(d.gain / log2(2 + (c.cost + greatest(d.rank - t.ideal_len, 0)) - d.gained), d.rank) AS g
    FROM gained d JOIN ideal_total t ON t.qid = d.qid
    JOIN cost_prefix c ON c.qid = d.qid AND c.irank = least(d.rank, t.ideal_len)
    GROUP BY d.qkey
)
SELECT q.system, q.qid,
       CASE WHEN coalesce(t.ideal_gain, 0) > 0 THEN coalesce(s.g, 0) / t.ideal_gain ELSE 0 END AS value
FROM pf_queries q
LEFT JOIN total s ON q.qkey = s.qkey
LEFT JOIN ideal_total t ON q.qid = t.qid
