-- Judgment groups, step 2: the retrieved documents each group judged, at ranks <= $depth (with
-- $judged_only: grade >= 0, ranked among themselves per group, trec_eval -J), with is_rel (grade >=
-- $rel_level) and rel_cum (relevant documents at ranks <= rank). Reads pf_ranks, pf_qrels_jg, pf_jg_queries.
CREATE OR REPLACE TEMP TABLE pf_jg_ranked AS
WITH cut AS (
    SELECT g.gkey, r.rank, j.rel
    FROM pf_jg_queries g
    JOIN pf_ranks r ON r.system = g.system AND r.qid = g.qid
    JOIN pf_qrels_jg j ON j.qid = g.qid AND j.jg = g.jg AND j.docno = r.docno
    WHERE $depth IS NULL OR r.rank <= $depth
),
kept AS (
    SELECT gkey, rank, rel FROM cut WHERE NOT $judged_only
    UNION ALL
    SELECT gkey, row_number() OVER (PARTITION BY gkey ORDER BY rank) AS rank, rel
    FROM cut WHERE $judged_only AND rel >= 0
)
SELECT gkey, rank, rel >= $rel_level AS is_rel,
       sum(CASE WHEN rel >= $rel_level THEN 1 ELSE 0 END) OVER (
           PARTITION BY gkey ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rel_cum
FROM kept;
