-- Judgment groups, step 1 (trec_eval -R qrels_jg, form_res_rels_jg.c): one row per judgment group
-- (pf_qrels_jg: qid, jg, docno, rel) of each evaluated (system, qid) of pf_queries. num_rel: the
-- group's documents of grade >= $rel_level; num_ret: the ranking's length after $depth (with
-- $judged_only: the retrieved documents the group judged, grade >= 0); n_jgs: groups of the query;
-- gkey: an integer key of the (system, qid, jg).
CREATE OR REPLACE TEMP TABLE pf_jg_queries AS
WITH groups AS (
    SELECT qid, jg, count(CASE WHEN rel >= $rel_level THEN 1 END) AS num_rel
    FROM pf_qrels_jg
    GROUP BY qid, jg
),
judged_ret AS (
    SELECT r.system, r.qid, j.jg, count(*) AS n
    FROM pf_ranks r JOIN pf_qrels_jg j ON j.qid = r.qid AND j.docno = r.docno
    WHERE $judged_only AND j.rel >= 0 AND ($depth IS NULL OR r.rank <= $depth)
    GROUP BY r.system, r.qid, j.jg
)
SELECT q.qkey, q.system, q.qid, gr.jg, gr.num_rel,
       CASE WHEN $judged_only THEN coalesce(jr.n, 0) ELSE q.num_ret END AS num_ret,
       count(*) OVER (PARTITION BY q.qkey) AS n_jgs,
       row_number() OVER (ORDER BY q.qkey, gr.jg) AS gkey
FROM pf_queries q
JOIN groups gr ON gr.qid = q.qid
LEFT JOIN judged_ret jr ON jr.system = q.system AND jr.qid = q.qid AND jr.jg = gr.jg;
