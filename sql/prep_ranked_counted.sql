-- Step 3 as prep_ranked.sql, from a pf_ranks that brings its running counts: rel_cum, nonrel_cum
-- and unjudged_cum per row (pairedframe.engines.ranking.running_counts, from rows already in rank
-- order), so no window sorts each ranking again. Not for $judged_only (it ranks anew). A $depth cut
-- keeps the counts: a row's count reads only rows ranked above it, none of which the cut drops.
-- Columns: those of prep_ranked.sql, in its order.
CREATE OR REPLACE TEMP TABLE pf_ranked AS
SELECT f.system, f.qid, f.docno, f.rank, f.rel,
       f.rel >= $rel_level AS is_rel,
       f.rel >= 0 AS is_judged,
       f.rel >= 0 AND f.rel < $rel_level AS is_judged_nonrel,
       CAST(CASE WHEN f.rel > 0 THEN f.rel ELSE 0 END AS DOUBLE) AS gain,
       q.qkey, q.num_rel, q.num_nonrel, q.max_grade,
       f.rel_cum, f.nonrel_cum, f.unjudged_cum
FROM pf_ranks f JOIN pf_queries q ON f.system = q.system AND f.qid = q.qid
WHERE $depth IS NULL OR f.rank <= $depth;
