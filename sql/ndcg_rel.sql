-- ndcg_rel (trec_eval m_ndcg_rel.c) under the gain map $gain_map: L = documents with a positive
-- ideal gain. Each retrieved document with a positive gain at rank r adds DCG(r) / IDCG(min(r, L));
-- the L - found relevant documents not retrieved add DCG(end) / IDCG(L) each; divided by L.
-- DCG and IDCG prefix sums are added in rank order (pf_seqsum over the ranks above).
WITH ideal AS (
    SELECT qid, irank, gain FROM pf_ideal WHERE gain_map = $gain_map
),
lens AS (
    SELECT qid, count(*) AS ideal_len FROM ideal GROUP BY qid
),
scored AS (
    SELECT r.qkey, r.qid, r.rank, g.gain, g.gain / log2(r.rank + 1) AS term
    FROM pf_ranked r JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    WHERE g.gain <> 0
),
points AS (
    SELECT DISTINCT s.qid, least(s.rank, l.ideal_len) AS e
    FROM scored s JOIN lens l ON l.qid = s.qid WHERE s.gain > 0
    UNION
    SELECT qid, ideal_len AS e FROM lens
),
idcg AS (
    SELECT p.qid, p.e, pf_seqsum(i.gain / log2(i.irank + 1), i.irank) AS idcg
    FROM points p JOIN ideal i ON i.qid = p.qid AND i.irank <= p.e
    GROUP BY p.qid, p.e
),
dcg AS (
    SELECT a.qkey, a.qid, a.rank, pf_seqsum(b.term, b.rank) AS dcg
    FROM (SELECT * FROM scored WHERE gain > 0) a
    JOIN scored b ON a.qkey = b.qkey AND b.rank <= a.rank
    GROUP BY a.qkey, a.qid, a.rank
),
found AS (
    SELECT d.qkey, count(*) AS found, pf_seqsum(d.dcg / i.idcg, d.rank) AS at_found
    FROM dcg d JOIN lens l ON l.qid = d.qid JOIN idcg i ON i.qid = d.qid AND i.e = least(d.rank, l.ideal_len)
    GROUP BY d.qkey
),
ends AS (
    SELECT qkey, pf_seqsum(term, rank) AS dcg_end FROM scored GROUP BY qkey
),
total AS (
    SELECT q.qkey, l.ideal_len,
           coalesce(f.at_found, 0) + CAST(l.ideal_len - coalesce(f.found, 0) AS DOUBLE) * coalesce(e.dcg_end, 0)
           / i.idcg AS total
    FROM pf_queries q JOIN lens l ON l.qid = q.qid JOIN idcg i ON i.qid = q.qid AND i.e = l.ideal_len
    LEFT JOIN ends e ON e.qkey = q.qkey
    LEFT JOIN found f ON f.qkey = q.qkey
)
SELECT q.system, q.qid, CASE WHEN t.total > 0 THEN t.total / t.ideal_len ELSE 0 END AS value
FROM pf_queries q LEFT JOIN total t ON q.qkey = t.qkey
