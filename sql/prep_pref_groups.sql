-- Preferences, step 4 (form_prefs_counts.c's JG counts): one row per judgment group of each
-- evaluated (system, qid): its preferences by kind -- ful_ret (both retrieved, a first), unf_ret
-- (both retrieved, b first), ful_imp (only a retrieved), unf_imp (only b), notoccur (neither) --
-- and its relevant / non-relevant / all documents, and how many of each are retrieved.
CREATE OR REPLACE TEMP TABLE pf_pref_jg AS
WITH kinds AS (
    SELECT qkey, g,
           count(CASE WHEN da < njr AND db < njr AND da < db THEN 1 END) AS ful_ret,
           count(CASE WHEN da < njr AND db < njr AND da > db THEN 1 END) AS unf_ret,
           count(CASE WHEN da < njr AND db >= njr THEN 1 END) AS ful_imp,
           count(CASE WHEN da >= njr AND db < njr THEN 1 END) AS unf_imp,
           count(CASE WHEN da >= njr AND db >= njr THEN 1 END) AS notoccur
    FROM pf_pref_ranked
    GROUP BY qkey, g
),
sizes AS (
    SELECT qkey, g,
           count(CASE WHEN rel THEN 1 END) AS n_rel,
           count(CASE WHEN rel AND did < njr THEN 1 END) AS n_rel_ret,
           count(CASE WHEN nonrel THEN 1 END) AS n_nonrel,
           count(CASE WHEN nonrel AND did < njr THEN 1 END) AS n_nonrel_ret,
           count(*) AS n_docs,
           count(CASE WHEN did < njr THEN 1 END) AS n_docs_ret,
           max(njr) AS njr
    FROM pf_pref_ranked_members
    GROUP BY qkey, g
)
SELECT q.qkey, q.system, q.qid, gr.g, gr.jg, gr.ec, gr.n_jgs, s.njr,
       coalesce(k.ful_ret, 0) AS ful_ret, coalesce(k.unf_ret, 0) AS unf_ret, coalesce(k.ful_imp, 0) AS ful_imp,
       coalesce(k.unf_imp, 0) AS unf_imp, coalesce(k.notoccur, 0) AS notoccur,
       s.n_rel, s.n_rel_ret, s.n_nonrel, s.n_nonrel_ret, s.n_docs, s.n_docs_ret
FROM pf_queries q
JOIN pf_pref_groups gr ON gr.qid = q.qid
JOIN sizes s ON s.qkey = q.qkey AND s.g = gr.g
LEFT JOIN kinds k ON k.qkey = q.qkey AND k.g = gr.g;
