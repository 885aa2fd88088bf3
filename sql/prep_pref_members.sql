-- Preferences, step 3: the documents of every judgment group of an evaluated (system, qid) with
-- their docid ranks. Reads pf_pref_members (g, doc, rel, nonrel, low), pf_pref_groups, pf_pref_dids.
CREATE OR REPLACE TEMP TABLE pf_pref_ranked_members AS
SELECT q.qkey, m.g, d.did, m.rel, m.nonrel, m.low, d.njr
FROM pf_queries q
JOIN pf_pref_groups gr ON gr.qid = q.qid
JOIN pf_pref_members m ON m.g = gr.g
JOIN pf_pref_dids d ON d.qkey = q.qkey AND d.doc = m.doc;
