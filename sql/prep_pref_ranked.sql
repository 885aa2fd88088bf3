-- Preferences, step 2: every preference of every judgment group of an evaluated (system, qid), a
-- preferred to b, as docid ranks (da, db); a document is retrieved when its docid rank < njr.
-- Reads pf_pref_pairs (g, a, b), pf_pref_groups (g, qid, ...) and pf_pref_dids.
CREATE OR REPLACE TEMP TABLE pf_pref_ranked AS
SELECT q.qkey, p.g, a.did AS da, b.did AS db, a.njr
FROM pf_queries q
JOIN pf_pref_groups gr ON gr.qid = q.qid
JOIN pf_pref_pairs p ON p.g = gr.g
JOIN pf_pref_dids a ON a.qkey = q.qkey AND a.doc = p.a
JOIN pf_pref_dids b ON b.qkey = q.qkey AND b.doc = p.b;
