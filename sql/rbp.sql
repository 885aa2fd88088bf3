-- RBP (trec_eval 10 m_rbp.c): (1 - $p) * sum over ranks r <= $k of gain(r) * $p^(r - 1), added in
-- rank order; $p^(r - 1) is pf_discounts' d at k = r - 1 (repeated products, as trec_eval's loop:
-- pow differs in the last bit for some r). With $rel set: gain 1 for a relevant document (is_rel),
-- else 0. Without: the gain of the grade under $gain_map (pf_gains), rescaled to [0, 1] by (g - lo) / (hi - lo) when a gain
-- level of the query lies outside [0, 1]: lo, hi over the gains of grades 0..max_grade and the
-- map's explicit entries (trec_eval's gain levels of the query); 0 when hi = lo (trec_eval: 0/0).
WITH bounds AS (
    SELECT q.qid, min(g.gain) AS lo, max(g.gain) AS hi
    FROM (SELECT DISTINCT qid, max_grade FROM pf_queries) q
    JOIN pf_gains g ON g.gain_map = $gain_map AND (g.rel <= q.max_grade OR g.explicit)
    GROUP BY q.qid
),
gains AS (
    SELECT r.qkey, r.rank,
           CASE WHEN $rel IS NOT NULL THEN CASE WHEN r.is_rel THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
                WHEN r.rel < 0 THEN CAST(0 AS DOUBLE)
                WHEN b.hi = b.lo AND (b.lo < 0 OR b.hi > 1) THEN CAST(0 AS DOUBLE)
                WHEN b.lo < 0 OR b.hi > 1 THEN (g.gain - b.lo) / (b.hi - b.lo)
                ELSE g.gain END AS gain
    FROM pf_ranked r
    LEFT JOIN pf_gains g ON g.gain_map = $gain_map AND g.rel = r.rel
    LEFT JOIN bounds b ON b.qid = r.qid
    WHERE $k IS NULL OR r.rank <= $k
),
total AS (
    SELECT g.qkey, pf_seqsum(g.gain * d.d, g.rank) AS total
    FROM gains g JOIN pf_discounts d ON d.p = $p AND d.k = g.rank - 1
    WHERE g.gain <> 0 GROUP BY g.qkey
)
SELECT q.system, q.qid, (1 - $p) * coalesce(t.total, 0) AS value
FROM pf_queries q LEFT JOIN total t ON q.qkey = t.qkey
