-- G (trec_eval m_G.c) under the gain map $gain_map: each retrieved document with gain g != 0 at
-- rank r adds g / log2(2 + cost(r) - gained(r)); gained(r) = gain retrieved at ranks <= r,
-- cost(r) = sum over ideal ranks <= r of max(ideal gain, 1) (1 beyond the ideal ranking).
-- Divided by the total ideal gain; every sum is added in rank order.
WITH ideal AS (
    SELECT qid, irank, gain FROM pf_ideal WHERE gain_map = $gain_map
),
ideal_total AS (
    SELECT qid, count(*) AS ideal_len, pf_seqsum(gain, irank) AS ideal_gain FROM ideal GROUP BY qid
),
scored AS (
    SELECT r.system, r.qid, r.rank, g.gain
    FROM pf_ranked r JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    WHERE g.gain <> 0
),
gained AS (
    SELECT a.system, a.qid, a.rank, a.gain, pf_seqsum(b.gain, b.rank) AS gained
    FROM scored a JOIN scored b ON a.system = b.system AND a.qid = b.qid AND b.rank <= a.rank
    GROUP BY a.system, a.qid, a.rank, a.gain
),
costed AS (
    SELECT d.system, d.qid, d.rank, d.gain, d.gained,
           pf_seqsum(greatest(i.gain, CAST(1 AS DOUBLE)), i.irank) + greatest(d.rank - t.ideal_len, 0) AS cost
    FROM gained d JOIN ideal_total t ON t.qid = d.qid JOIN ideal i ON i.qid = d.qid AND i.irank <= d.rank
    GROUP BY d.system, d.qid, d.rank, d.gain, d.gained, t.ideal_len
),
total AS (
    SELECT system, qid, pf_seqsum(gain / log2(2 + cost - gained), rank) AS g FROM costed GROUP BY system, qid
)
SELECT q.system, q.qid,
       CASE WHEN coalesce(t.ideal_gain, 0) > 0 THEN coalesce(s.g, 0) / t.ideal_gain ELSE 0 END AS value
FROM pf_queries q
LEFT JOIN total s ON q.system = s.system AND q.qid = s.qid
LEFT JOIN ideal_total t ON q.qid = t.qid
