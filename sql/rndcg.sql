-- Rndcg (trec_eval m_Rndcg.c) under the gain map $gain_map: nDCG at each ideal rank e after which
-- the ideal gain changes (the last rank of each run of equal ideal gains, L = the last positive
-- one included), DCG taken at min(e, num_ret); plus nDCG at the end of the ranking when
-- num_ret >= L + 2. The mean of these values, added in rank order; 0 when num_rel = 0 or there is
-- no positive ideal gain.
WITH ideal AS (
    SELECT qid, irank, gain, lead(gain) OVER (PARTITION BY qid ORDER BY irank) AS next_gain
    FROM pf_ideal WHERE gain_map = $gain_map
),
lens AS (
    SELECT qid, count(*) AS ideal_len FROM ideal GROUP BY qid
),
points AS (
    SELECT qid, irank AS e FROM ideal WHERE next_gain IS NULL OR next_gain <> gain
),
idcg AS (
    SELECT p.qid, p.e, pf_seqsum(i.gain / log2(i.irank + 1), i.irank) AS idcg
    FROM points p JOIN ideal i ON i.qid = p.qid AND i.irank <= p.e
    GROUP BY p.qid, p.e
),
scored AS (
    SELECT r.qkey, r.rank, g.gain / log2(r.rank + 1) AS term
    FROM pf_ranked r JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    WHERE g.gain <> 0
),
at_points AS (
    SELECT q.qkey, p.e AS k, coalesce(pf_seqsum(s.term, s.rank), 0) / p.idcg AS v
    FROM pf_queries q JOIN idcg p ON p.qid = q.qid
    LEFT JOIN scored s ON s.qkey = q.qkey AND s.rank <= p.e
    GROUP BY q.qkey, p.e, p.idcg
),
ends AS (
    SELECT qkey, pf_seqsum(term, rank) AS dcg_end FROM scored GROUP BY qkey
),
at_end AS (
    SELECT q.qkey, l.ideal_len + 1 AS k, coalesce(e.dcg_end, 0) / i.idcg AS v
    FROM pf_queries q JOIN lens l ON l.qid = q.qid JOIN idcg i ON i.qid = q.qid AND i.e = l.ideal_len
    LEFT JOIN ends e ON e.qkey = q.qkey
    WHERE q.num_ret >= l.ideal_len + 2
),
total AS (
    SELECT qkey, pf_seqsum(v, k) AS total, count(*) AS n
    FROM (SELECT * FROM at_points UNION ALL SELECT * FROM at_end) AS t
    GROUP BY qkey
)
SELECT q.system, q.qid,
       CASE WHEN q.num_rel > 0 AND coalesce(t.n, 0) > 0 THEN t.total / t.n ELSE 0 END AS value
FROM pf_queries q LEFT JOIN total t ON q.qkey = t.qkey
