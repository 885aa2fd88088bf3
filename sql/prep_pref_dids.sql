-- Preferences, step 1 (form_prefs_counts.c): the docid rank of each judged document of every
-- evaluated (system, qid): 0, 1, ... for the retrieved ones (rank <= $depth) in ranking order, then
-- the others in docno byte order. pf_ranks holds form_prefs_counts.c's ranks (score descending, then
-- docno ascending); pf_pref_docs (doc, qid, docno) the judged documents. njr: judged documents retrieved.
CREATE OR REPLACE TEMP TABLE pf_pref_dids AS
WITH judged AS (
    SELECT q.qkey, d.doc, d.docno, r.rank
    FROM pf_queries q
    JOIN pf_pref_docs d ON d.qid = q.qid
    LEFT JOIN pf_ranks r ON r.system = q.system AND r.qid = q.qid AND r.docno = d.docno
                         AND ($depth IS NULL OR r.rank <= $depth)
)
SELECT qkey, doc,
       row_number() OVER (PARTITION BY qkey ORDER BY CASE WHEN rank IS NULL THEN 1 ELSE 0 END, rank, docno) - 1 AS did,
       count(rank) OVER (PARTITION BY qkey) AS njr
FROM judged;
