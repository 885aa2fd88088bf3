-- pf_evaluate and pf_summary: the evaluation of pairedframe.evaluate as one DuckDB query. The query's
-- text is built when DuckDB binds the call (constant folding) and run by query(): the measures'
-- SELECTs and the preparation steps are the files in sql/ (pf__measure_sql, pf__prep_*: generated),
-- so the values are the DuckDB engine's. A run file is scanned once: parsed, ranked by a window
-- (trec_eval's order: score descending, then docno descending), and reduced to the judged documents'
-- ranks and each ranking's size, as the streamed engine reduces it (pairedframe.engines.ranking).

-- Checked options.
CREATE OR REPLACE TEMP MACRO pf__flag(x, what) AS
    CASE WHEN x IS NULL OR typeof(x) <> 'BOOLEAN' THEN error(what || ' must be true or false, got ' || coalesce(CAST(x AS VARCHAR), 'NULL'))
         ELSE CAST(x AS BOOLEAN) END;
CREATE OR REPLACE TEMP MACRO pf__depth(x) AS
    CASE WHEN x IS NULL THEN NULL
         WHEN TRY_CAST(x AS BIGINT) IS NULL OR CAST(x AS BIGINT) < 1 OR CAST(x AS DOUBLE) <> CAST(x AS BIGINT)
              THEN error('depth must be a positive integer or NULL, got ' || CAST(x AS VARCHAR))
         ELSE CAST(x AS BIGINT) END;
CREATE OR REPLACE TEMP MACRO pf__float32(x) AS
    CASE WHEN CAST(x AS VARCHAR) = 'float64' THEN false WHEN CAST(x AS VARCHAR) = 'float32' THEN true
         ELSE error('score_precision must be ''float64'' or ''float32'', got '
                    || CASE WHEN typeof(x) = 'VARCHAR' THEN pf__lit(x) ELSE coalesce(CAST(x AS VARCHAR), 'NULL') END) END;

-- Run tables (tables := true) as given; system := is refused naming it (it names run files: a table's own
-- system column names its systems, and the argument was ignored without a word), and so is a NULL name.
CREATE OR REPLACE TEMP MACRO pf__run_tables(ts, system, macro) AS
    CASE WHEN system IS NOT NULL
         THEN error(macro || ': system := names run files; with tables := true each table''s system column names '
                    || 'its systems (add one: SELECT ''bm25'' AS system, * FROM my_run)')
         -- a NULL was dropped from the query's text (its table silently left out), or broke that text
         WHEN list_contains([t IS NULL FOR t IN ts], true)
         THEN error(macro || ': `run`: NULL is not a table or view name; list the run tables or views')
         ELSE ts END;

-- A table or view name under tables := true; a file path there (a slash, or a file's extension) is refused
-- naming the argument: DuckDB would otherwise try to read it as a table and say only that no extension
-- reads the file. (A missing table cannot be checked here: see docs/guide/duckdb_sql.md.)
CREATE OR REPLACE TEMP MACRO pf__table_name(x, what, macro) AS
    CASE WHEN regexp_matches(lower(CAST(x AS VARCHAR)), '[/\\]|\.(txt|gz|zst|bz2|csv|tsv|parquet|run|qrels|trec|json)$')
         THEN error(macro || ': ' || what || ' ' || pf__lit(CAST(x AS VARCHAR)) || ' looks like a file, but with tables := true '
                    || 'run and qrels both name tables or views: read the file into one first (CREATE TABLE my_' || what
                    || ' AS SELECT * FROM pf_read_' || what || '(' || pf__lit(CAST(x AS VARCHAR)) || ')), or pass files for both '
                    || 'with tables := false')
         ELSE CAST(x AS VARCHAR) END;

-- The options of one call as a struct (each macro argument is read once here); `macro`, the macro called,
-- names it in the errors.
CREATE OR REPLACE TEMP MACRO pf__options(run, qrels, measures, complete, rel_level, depth, score_precision, system, tables,
                                         macro) AS
    {'macro': macro, 'ms': pf_measures(measures, rel_level := rel_level),
     'tables': pf__flag(tables, 'tables'),
     'paths': CASE WHEN pf__flag(tables, 'tables')
                   THEN [pf__table_name(t, 'run', macro) FOR t IN pf__run_tables(pf__aslist(run), system, macro)]
                   ELSE pf__paths(pf__aslist(run), macro, 'run') END,
     'names': CASE WHEN pf__flag(tables, 'tables') THEN pf__aslist(run)
                   ELSE pf__systems(pf__paths(pf__aslist(run), macro, 'run'), system, macro) END,
     'qrels': CASE WHEN qrels IS NULL THEN error(macro || ': qrels is NULL')
                   WHEN pf__flag(tables, 'tables') THEN pf__table_name(qrels, 'qrels', macro) ELSE CAST(qrels AS VARCHAR) END,
     'complete': pf__flag(complete, 'complete'), 'depth': pf__depth(depth), 'float32': pf__float32(score_precision)};

-- The ranking key of a score: the double, or its float32 rounding (beyond float32's range +-inf).
CREATE OR REPLACE TEMP MACRO pf__score_key(float32) AS
    CASE WHEN float32 THEN 'coalesce(CAST(TRY_CAST(score AS FLOAT) AS DOUBLE), CASE WHEN score > 0 THEN CAST(''inf'' AS DOUBLE) '
                           || 'ELSE CAST(''-inf'' AS DOUBLE) END)'
         ELSE 'score' END;

-- A list of strings as SQL text: ['a', 'b'].
CREATE OR REPLACE TEMP MACRO pf__sql_list(xs) AS '[' || coalesce(array_to_string([pf__lit(x) FOR x IN xs], ', '), '') || ']';

-- What a missing file's error adds in the macros that read tables too.
CREATE OR REPLACE TEMP MACRO pf__tables_hint() AS '; to read a table or view of that name, pass tables := true';

-- pf_run's part of the query for run files: one scan, ranked, reduced to pf_retrieved and pf_ranks.
-- The ranked rows are grouped by ranking: its size, its judged documents (rank, grade) and whether
-- two of its docnos hash alike. Only such rankings (those with a duplicate, or a hash collision)
-- are read again, for the duplicate's lines: the second read is a semi join on them, which DuckDB
-- stops at once when there are none.
CREATE OR REPLACE TEMP MACRO pf__run_files_sql(o) AS
    'pf_rows AS (' || pf__run_rows_sql(o['paths'], o['names']) || '), '
    || 'pf_scan AS MATERIALIZED (SELECT file_no, qid, count(*) AS n, list_unique(list(hash(docno))) < count(*) AS suspect, '
    || 'list({''docno'': docno, ''rank'': rank, ''rel'': rel}) FILTER (WHERE rel IS NOT NULL) AS judged '
    || 'FROM (SELECT w.file_no, w.qid, w.docno, w.rank, j.rel FROM (SELECT qid, docno, file_no, '
    || 'row_number() OVER (PARTITION BY file_no, qid ORDER BY ' || pf__score_key(o['float32']) || ' DESC, docno DESC) AS rank '
    || 'FROM pf_rows) AS w LEFT JOIN pf_qrels j ON j.qid = w.qid AND j.docno = w.docno) GROUP BY file_no, qid), '
    || 'pf_retrieved AS MATERIALIZED (SELECT ' || pf__file_name_sql(o['names']) || ' AS system, qid, n FROM pf_scan), '
    || 'pf_ranks AS MATERIALIZED (SELECT system, qid, j.docno, j.rank, j.rel FROM (SELECT '
    || pf__file_name_sql(o['names']) || ' AS system, qid, unnest(judged) AS j FROM pf_scan)), '
    || 'pf_dup AS (SELECT r.file_no, r.qid, r.docno, list(r.line_no ORDER BY r.line_no) AS lines, '
    -- each repeated line's 6th field, as pf.read_run takes it (io.duplicates): a trailing 7th field shifts
    -- nothing, and a line shifted by a blank inside its qid is named by pf_ragged's hint first
    || 'list_sort(list_distinct(list(r.tag))) AS tags FROM ('
    || pf__run_rows_sql(o['paths'], o['names'], cols := 'qid, docno, line_no, tag') || ') AS r SEMI JOIN (SELECT file_no, qid FROM pf_scan WHERE suspect) AS s '
    || 'ON s.file_no = r.file_no AND s.qid = r.qid GROUP BY r.file_no, r.qid, r.docno HAVING count(*) > 1 '
    || 'ORDER BY file_no, lines[1] LIMIT 1), ' || pf__ragged_sql(o['paths'], o['names']) || ', '
    || 'pf_run_problems AS ('
    || '(SELECT 1 AS k, ' || pf__run_dup_msg_sql(pf__file_name_sql(o['paths']), 'd.', 'g.') || ' AS msg '
    || 'FROM pf_dup AS d LEFT JOIN pf_ragged AS g ON true) UNION ALL '
    -- a missing file before any other problem (k 0), then the first file without data lines
    || '(SELECT CASE WHEN found = 0 THEN 0 ELSE 2 END, ' || pf__no_lines_msg_sql('run', pf__file_name_sql(o['paths']), '', pf__tables_hint())
    || ' FROM (SELECT unnest(range(1, ' || CAST(len(o['paths']) + 1 AS VARCHAR) || ')) AS file_no, unnest('
    || pf__sql_list(o['names']) || ') AS system) f JOIN (' || pf__found_sql(o['paths']) || ') g USING (file_no) '
    || 'WHERE system NOT IN (SELECT system FROM pf_retrieved) ORDER BY coalesce(found = 0, false) DESC, file_no LIMIT 1))';

-- pf_run's part of the query for tables (system, qid, docno, score): the preparation steps of sql/,
-- after the checks of check_run.sql and check_qrels.sql and of the column types.
-- A table's columns are read through a UNION ALL BY NAME with an empty row of NULL columns: a column
-- the table lacks is then of type NULL (named by problem 0), not DuckDB's Binder Error (the macro
-- cannot look the columns up itself: a table macro's arguments take no subquery).
CREATE OR REPLACE TEMP MACRO pf__table_columns_sql(t, cols) AS
    'SELECT ' || array_to_string(cols, ', ') || ' FROM ((SELECT ' || array_to_string(['NULL AS ' || c FOR c IN cols], ', ')
    || ' WHERE false) UNION ALL BY NAME (SELECT * FROM query_table(' || pf__lit(t) || ')))';
-- SQL of a row's values but column c's, as text (system='s', docno='d1', score=2.0): ids quoted.
CREATE OR REPLACE TEMP MACRO pf__row_text_sql(cols, c) AS
    array_to_string([pf__lit(x || '=') || ' || coalesce(' || CASE WHEN x IN ('score', 'rel') THEN 'CAST(' || x || ' AS VARCHAR)'
                                                                  ELSE 'pf__lit(' || x || ')' END || ', ''NULL'')'
                     FOR x IN cols IF x <> c], ' || '', '' || ');
-- SQL of one row: table t's first id column holding an empty or all-blank string (blanks: trec_eval's
-- field separators; no TREC file holds one; ids cast,
-- so that ids of another type bind): its name (pf_empty, NULL if none), its rows (pf_empty_n) and one
-- such row's other values (pf_empty_row, the least as text: a table has no row order). Aggregated over
-- the rows with an empty id only, so that the text is made for those alone.
CREATE OR REPLACE TEMP MACRO pf__empty_ids_sql(t, cols) AS
    ['SELECT coalesce(' || array_to_string(['CASE WHEN count(*) FILTER (' || d['w'] || ') > 0 THEN ' || pf__lit(d['c']) || ' END' FOR d IN ids], ', ')
     || ') AS pf_empty, coalesce(' || array_to_string(['nullif(count(*) FILTER (' || d['w'] || '), 0)' FOR d IN ids], ', ')
     || ') AS pf_empty_n, coalesce(' || array_to_string(['min(' || d['row'] || ') FILTER (' || d['w'] || ')' FOR d IN ids], ', ')
     || ') AS pf_empty_row FROM (' || pf__table_columns_sql(t, cols) || ') WHERE ' || array_to_string([d['w'] FOR d IN ids], ' OR ')
     FOR ids IN [[{'c': c, 'w': 'regexp_full_match(CAST(' || c || ' AS VARCHAR), ''[ \t\n\r\x0B\x0C]*'')', 'row': pf__row_text_sql(cols, c)}
                  FOR c IN cols IF c NOT IN ('score', 'rel')]]][1];
-- One row per table: its number of rows n, the columns it lacks (pf_missing, '' if none) and its empty
-- ids (pf__empty_ids_sql). Read from the types of an ungrouped aggregate, which has its row even for
-- an empty table (a check over the table's rows said nothing about an empty one).
CREATE OR REPLACE TEMP MACRO pf__table_shapes_sql(ts, cols) AS
    coalesce(array_to_string(['SELECT * FROM (SELECT ' || CAST(i AS VARCHAR) || ' AS pf_table, ' || pf__lit(t) || ' AS name, count(*) AS n, concat_ws('', '', '
                              || array_to_string(['CASE WHEN typeof(any_value(' || c || ')) = ''"NULL"'' THEN ''' || c || ''' END' FOR c IN cols], ', ')
                              || ') AS pf_missing FROM (' || pf__table_columns_sql(t, cols) || ')), (' || pf__empty_ids_sql(t, cols) || ')' FOR t, i IN ts],
                             ' UNION ALL '), '');
-- The message of the first table of pf_shapes lacking a column, empty or with an empty id (`what`: run or qrels).
CREATE OR REPLACE TEMP MACRO pf__shape_problem_sql(shapes, what, cols) AS
    '(SELECT 0 AS k, ' || pf__lit(what || ' table ') || ' || name || CASE WHEN pf_missing <> '''' THEN '': no column '' || pf_missing || '
    || pf__lit('; a ' || what || ' table has columns ' || cols
               || CASE WHEN what = 'run' THEN ' (without a system column: SELECT ''bm25'' AS system, * FROM my_run)' ELSE '' END)
    || ' WHEN n = 0 THEN ' || pf__lit(': empty table: no (' || cols || ') rows')
    || ' ELSE ' || pf__lit(': column ''') || ' || pf_empty || ' || pf__lit(''' is an empty or all-blank string in ') || ' || CAST(pf_empty_n AS VARCHAR) || '
    || pf__lit(' row(s), e.g. the row (') || ' || pf_empty_row || ' || pf__lit('); ' || pf__empty_id_rule()) || ' END AS msg FROM ' || shapes
    || ' WHERE pf_missing <> '''' OR n = 0 OR pf_empty IS NOT NULL ORDER BY pf_table LIMIT 1)';
CREATE OR REPLACE TEMP MACRO pf__run_tables_sql(o) AS
    'pf_run_raw AS (' || coalesce(array_to_string(['SELECT ' || CAST(i AS VARCHAR) || ' AS pf_table, * FROM ('
                                                   || pf__table_columns_sql(t, ['system', 'qid', 'docno', 'score']) || ')' FOR t, i IN o['paths']],
                                        ' UNION ALL '), '') || '), '
    || 'pf_run AS (SELECT CAST(system AS VARCHAR) AS system, CAST(qid AS VARCHAR) AS qid, CAST(docno AS VARCHAR) AS docno, '
    || 'TRY_CAST(score AS DOUBLE) AS score FROM pf_run_raw), '
    || 'pf_run_shapes AS (' || pf__table_shapes_sql(o['paths'], ['system', 'qid', 'docno', 'score']) || '), '
    || pf__prep_run_sql(o['float32']) || ', '
    || 'pf_run_problems AS ('
    || pf__shape_problem_sql('pf_run_shapes', 'run', 'system, qid, docno, score') || ' UNION ALL '
    || pf__shape_problem_sql('pf_qrels_shapes', 'qrels', 'qid, docno, rel') || ' UNION ALL '
    || '(SELECT 1, ''run table: column '' || c || '' is '' || t || CASE WHEN c = ''score'' THEN ''; it must be a number'' '
    || 'ELSE ''; ids are strings (CAST('' || c || '' AS VARCHAR)), so that 007 stays 007 and run and qrels ids compare equal'' END AS msg '
    || 'FROM (SELECT unnest([''system'', ''qid'', ''docno'', ''score'']) AS c, unnest([typeof(system), typeof(qid), typeof(docno), typeof(score)]) AS t '
    || 'FROM (SELECT * FROM pf_run_raw LIMIT 1)) WHERE (c <> ''score'' AND t <> ''VARCHAR'') OR (c = ''score'' AND NOT regexp_full_match(t, '
    || '''(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|REAL|DECIMAL.*)''))) UNION ALL '
    || '(SELECT 2, ''qrels table: column '' || c || '' is '' || t || CASE WHEN c = ''rel'' THEN ''; it must be an integer grade'' '
    || 'ELSE ''; ids are strings'' END FROM (SELECT unnest([''qid'', ''docno'', ''rel'']) AS c, unnest([typeof(qid), typeof(docno), typeof(rel)]) AS t '
    || 'FROM (SELECT * FROM pf_qrels_raw LIMIT 1)) WHERE (c <> ''rel'' AND t <> ''VARCHAR'') OR (c = ''rel'' AND NOT regexp_full_match(t, '
    || '''(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|REAL|DECIMAL.*)''))) UNION ALL '
    || '(SELECT 3, ''run tables '' || ' || pf__sql_list(o['paths']) || '[a] || '' and '' || ' || pf__sql_list(o['paths']) || '[b] '
    || '|| '' both hold system '' || CAST(system AS VARCHAR) || ''; systems must be distinct across the tables (rename one, or concatenate them '
    || 'yourself if they are parts of one run)'' FROM (SELECT system, min(pf_table) AS a, max(pf_table) AS b FROM pf_run_raw GROUP BY system '
    || 'HAVING min(pf_table) < max(pf_table)) ORDER BY a, b LIMIT 1) UNION ALL '
    || '(SELECT 4, ''run table: '' || problem || CASE WHEN problem = ''duplicate'' THEN '' (system, qid, docno) = ('' || system || '', '' || qid '
    || '|| '', '' || docno || '') ('' || CAST(n AS VARCHAR) || '' rows); '' || ' || pf__lit(pf__duplicate_rule()) || ' ELSE '': score = '' || coalesce(value, ''NULL'') '
    || '|| '' at (system, qid, docno) = ('' || coalesce(system, ''NULL'') || '', '' || coalesce(qid, ''NULL'') || '', '' || coalesce(docno, ''NULL'') || '')'' END '
    || 'FROM (' || replace(pf__check_run_sql(), 'pf_run', 'pf_run_raw') || ') LIMIT 1) UNION ALL '
    || '(SELECT 5, ''qrels table: '' || problem || CASE WHEN problem = ''duplicate'' THEN '' (qid, docno) = ('' || qid || '', '' || docno '
    || '|| '') ('' || CAST(n AS VARCHAR) || '' rows); '' || ' || pf__lit(pf__duplicate_rule()) || ' ELSE '': rel = '' || coalesce(value, ''NULL'') '
    || '|| '' at (qid, docno) = ('' || coalesce(qid, ''NULL'') || '', '' || coalesce(docno, ''NULL'') || '')'' END '
    || 'FROM (' || replace(pf__check_qrels_sql(), 'pf_qrels', 'pf_qrels_raw') || ') LIMIT 1))';

-- The distinct values of a list, in order of first appearance.
CREATE OR REPLACE TEMP MACRO pf__distinct(xs) AS [x FOR x, i IN xs IF list_position(xs, x) = i];

-- The (relevance level, judged_only) group of a measure: the prepared tables it reads.
CREATE OR REPLACE TEMP MACRO pf__group(m) AS {'rel': coalesce(m['rel'], 1), 'judged_only': m['judged_only']};

-- pf_gains (the gain of each grade under each gain map in use), pf_lists (list parameters) and
-- pf_discounts (p, k, d = p^k for the p of each RBP / RBPResid measure, k = 0 up to the largest number
-- of documents a system retrieved for a query; at least 1, a -c query's placeholder): d by repeated
-- products, as trec_eval's loop (gains.py discount_table; pow differs in the last bit), in a
-- recursive CTE since no Python runs here.
-- pf_gains lists 0, the qrels' grades, the explicit entries and their neighbours e - 1, e + 1 up
-- to the largest grade (gains.py gain_levels: all RBP's bounds need), not every grade up to the
-- largest, which may be in the billions. Computed here from pf_qrels, where no Python runs;
-- test_gain_table_of_the_macros_against_gain_table holds the two to one rule.
CREATE OR REPLACE TEMP MACRO pf__parameter_tables_sql(ms) AS
    'pf_gain_keys AS (SELECT DISTINCT gain_map FROM (VALUES '
    || coalesce(array_to_string(['('''')'] || ['(' || pf__lit(pf__gain_key(m)) || ')' FOR m IN ms IF pf__family(m['family']).uses_gain], ', '), '')
    || ') AS t(gain_map)), '
    || 'pf_gain_entries AS (SELECT DISTINCT CAST(gain_map AS VARCHAR) AS gain_map, CAST(rel AS BIGINT) AS rel, CAST(gain AS DOUBLE) AS gain FROM (VALUES '
    || coalesce(array_to_string(flatten([['(' || pf__lit(pf__gain_key(m)) || ', ' || CAST(x['l'] AS VARCHAR) || ', ' || pf__sql_double(x['g']) || ')' FOR x IN CAST(m['gains'] AS STRUCT(l BIGINT, g DOUBLE)[])]
                                FOR m IN ms IF m['gains'] IS NOT NULL AND pf__family(m['family']).uses_gain]) || ['(NULL, NULL, NULL)'], ', '), '')
    || ') AS t(gain_map, rel, gain) WHERE gain_map IS NOT NULL), '
    || 'pf_gains AS MATERIALIZED (SELECT k.gain_map, l.rel, coalesce(e.gain, CASE WHEN k.gain_map = ''exp'' THEN pow(2.0, l.rel) - 1 '
    || 'ELSE CAST(l.rel AS DOUBLE) END) AS gain, e.gain IS NOT NULL AS explicit FROM pf_gain_keys k '
    || 'JOIN (SELECT DISTINCT gain_map, rel FROM (SELECT k.gain_map, q.rel FROM pf_gain_keys k, '
    || '(SELECT DISTINCT CAST(rel AS BIGINT) AS rel FROM pf_qrels WHERE rel >= 0 UNION ALL SELECT 0) q '
    || 'UNION ALL SELECT gain_map, rel FROM pf_gain_entries '
    || 'UNION ALL SELECT n.gain_map, n.rel FROM (SELECT gain_map, rel + unnest([-1, 1]) AS rel FROM pf_gain_entries) n, '
    || '(SELECT CAST(greatest(coalesce(max(rel), 0), 0) AS BIGINT) AS top FROM pf_qrels) g WHERE n.rel BETWEEN 0 AND g.top)) l '
    || 'ON l.gain_map = k.gain_map LEFT JOIN pf_gain_entries e ON e.gain_map = k.gain_map AND e.rel = l.rel), '
    || 'pf_lists AS (SELECT DISTINCT CAST(list_key AS VARCHAR) AS list_key, CAST(pos AS BIGINT) AS pos, CAST(value AS DOUBLE) AS value FROM (VALUES '
    || coalesce(array_to_string(flatten([['(' || pf__lit(pf__list_key(xs)) || ', ' || CAST(i AS VARCHAR) || ', ' || pf__sql_double(x) || ')' FOR x, i IN xs]
                                FOR xs IN flatten([pf__lists(m) FOR m IN ms])]) || ['(NULL, NULL, NULL)'], ', '), '')
    || ') AS t(list_key, pos, value) WHERE list_key IS NOT NULL), '
    || 'pf_discounts AS MATERIALIZED (WITH RECURSIVE pf_discount_top AS (SELECT greatest(coalesce(max(n), 0), 1) AS top FROM pf_retrieved), '
    || 'pf_powers(p, k, d) AS (SELECT DISTINCT CAST(p AS DOUBLE), CAST(0 AS BIGINT), CAST(1 AS DOUBLE) FROM (VALUES '
    || array_to_string(['(' || pf__sql_double(pf__discount_p(m)) || ')' FOR m IN ms IF pf__discount_p(m) IS NOT NULL] || ['(NULL)'], ', ')
    || ') AS t(p) WHERE p IS NOT NULL UNION ALL SELECT w.p, w.k + 1, w.d * w.p FROM pf_powers w, pf_discount_top t WHERE w.k < t.top) '
    || 'SELECT p, k, d FROM pf_powers)';

-- Problems that stop the evaluation, first one first (each branch keeps its first row).
CREATE OR REPLACE TEMP MACRO pf__problems_sql(o) AS
    'pf_problems AS (SELECT k, msg FROM pf_run_problems UNION ALL '
    || '(SELECT 10, ' || pf__lit(o['macro'] || ': no run query is in the qrels (run queries e.g. ') || ' || (SELECT CAST(list(DISTINCT qid)[1:3] AS VARCHAR) FROM pf_retrieved) '
    || '|| '', qrels queries e.g. '' || (SELECT CAST(list(DISTINCT qid)[1:3] AS VARCHAR) FROM pf_qrels) '
    || '|| ''): are run and qrels of the same collection and year?'' WHERE NOT EXISTS (SELECT 1 FROM pf_retrieved WHERE qid IN (SELECT qid FROM pf_qrels)))'
    || coalesce(array_to_string([' UNION ALL (SELECT 20, ' || pf__lit(m['name'] || ' takes grades up to ' || CAST(pf__family(m['family']).max_grade AS VARCHAR)
                                                              || ' (as gdeval), but the qrels have grade ')
                        || ' || CAST(top AS VARCHAR) || ' || pf__lit('; map the grades first (e.g. least(rel, ' || CAST(pf__family(m['family']).max_grade AS VARCHAR) || '))')
                        || ' FROM (SELECT max(rel) AS top FROM pf_qrels) WHERE top > ' || CAST(pf__family(m['family']).max_grade AS VARCHAR) || ')'
                        FOR m IN o['ms'] IF pf__family(m['family']).max_grade IS NOT NULL], ''), '')
    || '), pf_check AS (SELECT CASE WHEN count(*) = 0 THEN true ELSE error(arg_min(msg, k)) END AS ok FROM pf_problems)';

-- The per-query values of every measure: system, qid, measure, pos (its place in the list), agg
-- (how the summary aggregates it), value. With complete, a query the system did not retrieve (not in
-- pf_retrieved) has 0 for the measures pf__placeholder_zero names, as pf.evaluate has.
CREATE OR REPLACE TEMP MACRO pf__values_sql(ms, groups, complete) AS
    'pf_values AS (' || coalesce(array_to_string(
        ['SELECT m.system, m.qid, ' || pf__lit(m['name']) || ' AS measure, ' || CAST(i AS VARCHAR) || ' AS pos, '
         || pf__lit(pf__family(m['family']).aggregate) || ' AS agg, '
         || CASE WHEN complete AND m['placeholder_zero']
                 THEN 'CASE WHEN r.qid IS NULL THEN 0.0 ELSE CAST(m.value AS DOUBLE) END AS value FROM ('
                 ELSE 'CAST(m.value AS DOUBLE) AS value FROM (' END
         || pf__measure_sql(m, list_position(groups, pf__group(m))) || ') AS m'
         || CASE WHEN complete AND m['placeholder_zero']
                 THEN ' LEFT JOIN pf_retrieved r ON r.system = m.system AND r.qid = m.qid' ELSE '' END
         FOR m, i IN ms], ' UNION ALL '), '') || ')';

-- The whole query: kind 'per_query' (system, qid, measure, value) or 'summary' (system, measure,
-- value, n_queries: trec_eval's "all" rows, sums added in query-id order).
CREATE OR REPLACE TEMP MACRO pf__eval_sql(o_in, kind) AS
    [[CASE WHEN o['tables']
           THEN 'WITH pf_qrels_raw AS (' || pf__table_columns_sql(o['qrels'], ['qid', 'docno', 'rel']) || '), '
                || 'pf_qrels AS MATERIALIZED (SELECT CAST(qid AS VARCHAR) AS qid, CAST(docno AS VARCHAR) AS docno, '
                || 'TRY_CAST(rel AS BIGINT) AS rel FROM pf_qrels_raw), '
                || 'pf_qrels_shapes AS (' || pf__table_shapes_sql([o['qrels']], ['qid', 'docno', 'rel']) || '), '
                || pf__run_tables_sql(o)
           ELSE 'WITH pf_qrels AS MATERIALIZED (' || pf__read_qrels_sql(o['qrels'], hint := pf__tables_hint()) || '), '
                || pf__run_files_sql(o) END
      || ', ' || pf__parameter_tables_sql(o['ms']) || ', '
      || coalesce(array_to_string([pf__prep_group_sql(i, g['rel'], g['judged_only'], o['complete'], o['depth']) FOR g, i IN groups], ', '), '')
      || ', ' || pf__problems_sql(o) || ', ' || pf__values_sql(o['ms'], groups, o['complete']) || ' '
      || CASE WHEN kind = 'summary'
              THEN ', pf_means AS MATERIALIZED (SELECT system, measure, pos, CASE agg WHEN ''sum'' THEN sum(value ORDER BY qid) '
                   || 'WHEN ''gmean'' THEN exp(sum(CASE WHEN agg = ''gmean'' THEN ln(value) END ORDER BY qid) / count(value)) '
                   || 'ELSE sum(value ORDER BY qid) / count(value) END AS value, count(value) AS n_queries '
                   || 'FROM pf_values WHERE (SELECT ok FROM pf_check) GROUP BY system, measure, pos, agg) '
                   -- a run with no query in the qrels keeps its rows (value NULL, n_queries 0): pf.evaluate
                   -- warns that it left the run out, and SQL has no warning to give
                   || 'SELECT system, measure, value, n_queries FROM (SELECT * FROM pf_means UNION ALL '
                   || 'SELECT s.system, m.measure, m.pos, CAST(NULL AS DOUBLE), 0 FROM (SELECT DISTINCT system FROM pf_retrieved '
                   || 'WHERE system NOT IN (SELECT system FROM pf_means)) s, (VALUES '
                   || array_to_string(['(' || pf__lit(m['name']) || ', ' || CAST(i AS VARCHAR) || ')' FOR m, i IN o['ms']], ', ')
                   || ') AS m(measure, pos)) ORDER BY system, pos'
              WHEN kind = 'ctes' THEN ''
              ELSE 'SELECT system, qid, measure, value FROM pf_values WHERE (SELECT ok FROM pf_check) ORDER BY system, qid, pos' END
      FOR groups IN [pf__distinct([pf__group(m) FOR m IN o['ms']])]][1]
     FOR o IN [o_in]][1];

-- pf_evaluate(run, qrels, measures [, complete, rel_level, depth, score_precision, system, tables]):
-- system, qid, measure, value as pairedframe.evaluate's per_query. run: a run file or a list of them
-- (system: a name, or one per file; default TREC's naming), qrels: a qrels file; with tables := true,
-- names of tables or views (run: system, qid, docno, score; qrels: qid, docno, rel).
CREATE OR REPLACE TEMP MACRO pf_evaluate(run, qrels, measures, complete := false, rel_level := 1, depth := NULL,
                                         score_precision := 'float64', system := NULL, tables := false) AS TABLE
SELECT * FROM query(pf__eval_sql(pf__options(run, qrels, measures, complete, rel_level, depth, score_precision, system, tables,
                                             'pf_evaluate'), 'per_query'));

-- pf_summary(...): system, measure, value, n_queries, as Evaluation.summary() (the mean over the
-- evaluated queries; the sum for counts; the geometric mean for gm_map and gm_bpref).
CREATE OR REPLACE TEMP MACRO pf_summary(run, qrels, measures, complete := false, rel_level := 1, depth := NULL,
                                        score_precision := 'float64', system := NULL, tables := false) AS TABLE
SELECT * FROM query(pf__eval_sql(pf__options(run, qrels, measures, complete, rel_level, depth, score_precision, system, tables,
                                             'pf_summary'), 'summary'));
