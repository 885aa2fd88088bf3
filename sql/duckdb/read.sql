-- TREC run and qrels files read by DuckDB itself, with the rules of pairedframe.io.trec (trec_eval's):
-- fields split on runs of blanks (space, tab, CR, VT, FF), blank lines and lines whose first
-- non-blank character is '#' skipped, ids kept as strings ('007' stays '007'). Every check the
-- Python readers make raises here too, naming the file, the line and the offending text.
-- DuckDB-only SQL (read_csv, lists, error(), query()); pairedframe.sql_macros assembles it.

-- The fields of a line. A line whose only blanks are single spaces between fields (nearly every
-- line) is split on ' ' as it is; any other (tabs, CR, VT, FF, runs of blanks, leading or trailing
-- blanks) has its blanks made spaces and is split on runs of them. Tested with strpos (a memchr):
-- translate() on every line cost more than reading the file.
CREATE OR REPLACE TEMP MACRO pf__fields(line) AS
    CASE WHEN strpos(line, chr(9)) > 0 OR strpos(line, chr(13)) > 0 OR strpos(line, chr(11)) > 0 OR strpos(line, chr(12)) > 0
              OR strpos(line, '  ') > 0 OR starts_with(line, ' ') OR ends_with(line, ' ')
         THEN string_split_regex(trim(translate(line, chr(9) || chr(13) || chr(11) || chr(12), '    ')), ' +')
         ELSE string_split(line, ' ') END;

-- A value quoted as SQL text ('it''s'): the SQL the builders write never pastes a raw value.
CREATE OR REPLACE TEMP MACRO pf__lit(s) AS '''' || replace(CAST(s AS VARCHAR), '''', '''''') || '''';

-- One string or a list of strings, as a list.
CREATE OR REPLACE TEMP MACRO pf__aslist(x) AS
    CASE WHEN typeof(x) LIKE '%[]' THEN CAST(x AS VARCHAR[]) ELSE [CAST(x AS VARCHAR)] END;

-- A parameter tuple as Python writes it: (0.25,0.5), (1.0,).
CREATE OR REPLACE TEMP MACRO pf__tuple(xs) AS
    '(' || replace(substr(CAST(xs AS VARCHAR), 2, length(CAST(xs AS VARCHAR)) - 2), ', ', ',') || CASE WHEN len(xs) = 1 THEN ',' ELSE '' END || ')';

-- Whether a missing file at `path` is read as no lines (read_csv's allow_empty, DuckDB 2.0 on), so that
-- the macros name it themselves (pf__found_sql); before 2.0 DuckDB stops the query with its own IO Error
-- when it binds the read, before any check of the macros can run. Local paths only: a URL's file is
-- not looked for (glob would list a bucket), so it keeps DuckDB's own error.
CREATE OR REPLACE TEMP MACRO pf__reads_missing(path) AS
    coalesce(TRY_CAST(regexp_extract(version(), '^v?([0-9]+)', 1) AS INTEGER) >= 2, false) AND strpos(path, '://') = 0;

-- Every line of one file (plain, .gz or .zst by its extension): 1-based number, text, fields.
-- The line is read whole (a control byte as the separator); row_number() OVER () numbers the lines
-- in file order (DuckDB's streaming window keeps the scan's order). Read through query(): the
-- allow_empty option exists only from DuckDB 2.0 on (pf__reads_missing); read so, a missing file is a
-- table of one column `empty`, hence the union by name with an empty `line` column.
CREATE OR REPLACE TEMP MACRO pf__lines(path) AS TABLE
SELECT line_no, line, pf__fields(line) AS f
FROM query('SELECT row_number() OVER () AS line_no, coalesce(line, '''') AS line FROM '
           || CASE WHEN pf__reads_missing(path) THEN '((SELECT CAST(NULL AS VARCHAR) AS line WHERE false) UNION ALL BY NAME (SELECT * FROM '
                   ELSE '' END
           || 'read_csv(' || pf__lit(path) || ', columns = {''line'': ''VARCHAR''}, delim = chr(1), quote = '''', escape = '''', '
           || 'header = false, auto_detect = false' || CASE WHEN pf__reads_missing(path) THEN ', allow_empty = true))' ELSE '' END
           || ')') AS l;

-- SQL of a table (file_no, found) telling for each file whether it exists (found = 0: no such file),
-- for the files pf__lines reads as no lines when missing (the others: found NULL, their errors DuckDB's).
CREATE OR REPLACE TEMP MACRO pf__found_sql(paths) AS
    coalesce(array_to_string(['SELECT ' || CAST(i AS VARCHAR) || ' AS file_no, '
                              || CASE WHEN pf__reads_missing(p) THEN 'count(*) AS found FROM glob(' || pf__lit(p) || ')'
                                      ELSE 'CAST(NULL AS BIGINT) AS found' END
                              FOR p, i IN paths], ' UNION ALL '), '');

-- SQL of the message of a file without data lines, from columns <d>file_no and <d>found: "no such file"
-- (with `hint`), else "empty file". file_sql: SQL of its name.
CREATE OR REPLACE TEMP MACRO pf__no_lines_msg_sql(what, file_sql, d, hint) AS
    pf__lit(what || ' file ') || ' || ' || file_sql || ' || CASE WHEN ' || d || 'found = 0 THEN '
    || pf__lit(': no such file' || hint) || ' ELSE '
    || pf__lit(': empty file: no data lines (blank and # lines are skipped)') || ' END';

-- Whether a line holds data: not blank and its first non-blank character is not '#'. Tested on the
-- raw line, first by its first character's code, in ranges (DuckDB pushes this filter below the split
-- and would repeat it; an IN list became a join): all but '' 0, tab 9, VT 11, FF 12, CR 13, space 32, '#' 35.
CREATE OR REPLACE TEMP MACRO pf__data_line(line) AS
    CASE WHEN ascii(line) > 35 OR ascii(line) BETWEEN 1 AND 8 OR ascii(line) = 10 OR ascii(line) BETWEEN 14 AND 31
              OR ascii(line) BETWEEN 33 AND 34 THEN true
         ELSE regexp_matches(line, '^[ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c#]') END;

-- "run file x.txt, line 3, column 5: " (InputFormatError's wording).
CREATE OR REPLACE TEMP MACRO pf__at(what, path, line_no, col) AS
    what || ' file ' || path || ', line ' || CAST(line_no AS VARCHAR) || coalesce(', column ' || CAST(col AS VARCHAR), '') || ': ';

-- What a line that is not a TREC line of kind `what` looks like (the readers' hints).
CREATE OR REPLACE TEMP MACRO pf__looks_like(f, line, what) AS
    CASE WHEN starts_with(f[1], '{') OR starts_with(f[1], '[') THEN '; it looks like JSON, not TREC text'
         WHEN starts_with(f[1], '<') THEN '; it looks like XML or HTML, not TREC text'
         WHEN strpos(line, ',') > 0 AND len(f) < 4
              THEN '; it looks like CSV (comma-separated), not TREC text (fields separated by blanks)'
         WHEN what = 'run' AND len(f) = 4
              THEN '; it looks like a qrels line (qid iter docno rel): are the arguments swapped? pf_evaluate(run, qrels, ...) takes the run first'
         WHEN what = 'qrels' AND len(f) >= 6
              THEN '; it looks like a run line (qid Q0 docno rank score tag): are the arguments swapped? pf_evaluate(run, qrels, ...) takes the run first'
         ELSE '' END;

-- A line past the first of a .gz or .zst file that is cut short may be where the file ends: DuckDB
-- before 2.0 reads a truncated gzip file up to its end without a word (2.0 raises 'Unexpected end of
-- GZIP stream'), and every version a truncated zstd file, so a field-count or score error there names
-- the likely cause instead of guessing swapped arguments. NULL for other lines and files.
CREATE OR REPLACE TEMP MACRO pf__cut_hint(path, line_no) AS
    CASE WHEN line_no > 1 AND regexp_matches(lower(path), '\.(gz|zst)$')
         THEN ['; if this is the file''s last line, the file is cut short: a corrupt or truncated ' || z || ' file ('
               || 'DuckDB ' || CASE WHEN z = 'gzip' THEN 'before 2.0 reads' ELSE 'reads' END || ' one up to where it ends '
               || 'without an error; check it with ' || CASE WHEN z = 'gzip' THEN 'gzip' ELSE 'zstd' END || ' -t)'
               FOR z IN [CASE WHEN ends_with(lower(path), '.gz') THEN 'gzip' ELSE 'zstd' END]][1] END;

-- The data lines of one run file as system, qid, docno, score, line_no, tag, fields; a line with fewer than 6
-- fields or a score that is not a number (or NaN) raises; inf and -inf rank as pf.read_run ranks them.
-- DuckDB's cast reads digit separators (1_000 as 1000); pf.read_run does not, so a '_' is no number.
CREATE OR REPLACE TEMP MACRO pf__run_file(path, system) AS TABLE
SELECT system AS system, f[1] AS qid, f[3] AS docno, score, line_no, f[6] AS tag, f AS fields
FROM (SELECT line_no, line, f, CASE WHEN strpos(f[5], '_') = 0 THEN TRY_CAST(f[5] AS DOUBLE) END AS score
      FROM pf__lines(path) WHERE pf__data_line(line)) AS l
WHERE CASE WHEN len(f) < 6
                THEN error(pf__at('run', path, line_no, NULL) || 'expected at least 6 fields (qid Q0 docno rank score tag), found '
                           || CAST(len(f) AS VARCHAR) || coalesce(pf__cut_hint(path, line_no), pf__looks_like(f, line, 'run')) || ': ' || pf__lit(line))
           WHEN score IS NULL
                THEN error(pf__at('run', path, line_no, 5) || 'score ' || pf__lit(f[5]) || ' is not a number'
                           || coalesce(pf__cut_hint(path, line_no), pf__looks_like(f, line, 'run')) || ': ' || pf__lit(line))
           WHEN isnan(score)
                THEN error(pf__at('run', path, line_no, 5) || 'score ' || pf__lit(f[5])
                           || ' is NaN (not a number), which cannot be ranked (inf and -inf can): ' || pf__lit(line))
           ELSE true END;

-- The data lines of one qrels file as qid, docno, rel, line_no; a line without exactly 4 fields or
-- a grade that is not an integer (1, -1, 1.0 and 1. are) raises.
CREATE OR REPLACE TEMP MACRO pf__qrels_file(path) AS TABLE
SELECT f[1] AS qid, f[3] AS docno, rel, line_no
FROM (SELECT line_no, line, f,
             CASE WHEN regexp_full_match(f[4], '[+-]?[0-9]+(\.0*)?')
                  THEN TRY_CAST(regexp_replace(f[4], '\.0*$', '') AS BIGINT) END AS rel
      FROM pf__lines(path) WHERE pf__data_line(line)) AS l
WHERE CASE WHEN len(f) <> 4
                THEN error(pf__at('qrels', path, line_no, NULL) || 'expected exactly 4 fields (qid iter docno rel), found '
                           || CAST(len(f) AS VARCHAR) || coalesce(pf__cut_hint(path, line_no), pf__looks_like(f, line, 'qrels')) || ': ' || pf__lit(line))
           WHEN rel IS NULL
                THEN error(pf__at('qrels', path, line_no, 4) || 'relevance grade ' || pf__lit(f[4]) || ' is not an integer'
                           || coalesce(pf__cut_hint(path, line_no), pf__looks_like(f, line, 'qrels')) || ': ' || pf__lit(line))
           ELSE true END;

-- TREC's system name of a run file: the file name without .gz or .zst and without a leading 'input.'.
CREATE OR REPLACE TEMP MACRO pf__trec_name(p) AS
    regexp_replace(regexp_replace(parse_filename(p), '(.)\.(gz|zst)$', '\1'), '^input\.(.)', '\1');

-- The run paths, refused when one is a glob pattern (each path is one run, named after its file).
-- `macro` is the macro called and `arg` its run argument, which the errors name (the macros share this check).
CREATE OR REPLACE TEMP MACRO pf__paths(paths, macro, arg) AS
    CASE WHEN len(paths) = 0 THEN error(macro || ': no run file given: `' || arg || '` is an empty list; give a run file '
                                        || 'or a list of run files')
         WHEN len([p for p in paths if p IS NULL OR regexp_matches(p, '[*?]')]) > 0
              THEN error(macro || ': `' || arg || '`: ' || coalesce(pf__lit([p for p in paths if p IS NULL OR regexp_matches(p, '[*?]')][1]), 'NULL')
                         || ' is not a file path (a NULL or a glob pattern); list the files, one system each')
         ELSE paths END;

-- System names of the run files: `system` (a name, or a list with one name per file) or TREC's naming.
CREATE OR REPLACE TEMP MACRO pf__systems(paths, system, macro) AS
    [CASE WHEN list_contains([n IS NULL FOR n IN names], true)
               THEN error(macro || ': `system`: a system name is NULL; give each run file a name (a string), '
                          || 'or leave system := out for TREC''s naming')
          WHEN len(names) <> len(paths)
               THEN error(macro || ': ' || CAST(len(names) AS VARCHAR) || ' system name(s) for '
                          || CAST(len(paths) AS VARCHAR) || ' run files')
          -- NULLs are out: list_distinct drops them, and the message's pf__lit(NULL) made error(NULL), a no-op
          WHEN len(list_distinct(names)) < len(names)
               THEN error(macro || ': duplicate system name ' || pf__lit([n for n, i in names if list_position(names, n) < i][1])
                          || '; rename the files or pass system := [...] with one name per file')
          WHEN len([n for n in names if n IS NULL OR regexp_full_match(n, '[ \t\n\r\x0B\x0C]*')]) > 0
               THEN error(macro || ': a system name is empty or made of blanks only')
          ELSE names END
     FOR names IN [CASE WHEN system IS NULL THEN [pf__trec_name(p) for p in paths] ELSE pf__aslist(system) END]][1];

-- SQL of the checked rows of run files (system, qid, docno, score, line_no, file_no; or the columns
-- `cols` of pf__run_file, and file_no).
CREATE OR REPLACE TEMP MACRO pf__run_rows_sql(paths, names, cols := 'system, qid, docno, score, line_no') AS
    coalesce(array_to_string([
        'SELECT ' || cols || ', ' || CAST(i AS VARCHAR) || ' AS file_no FROM pf__run_file('
        || pf__lit(paths[i]) || ', ' || pf__lit(names[i]) || ')'
        FOR i IN range(1, len(paths) + 1)], ' UNION ALL '), '');

-- A CASE naming the file of each file_no, for error messages.
CREATE OR REPLACE TEMP MACRO pf__file_name_sql(paths) AS
    'CASE file_no ' || coalesce(array_to_string(['WHEN ' || CAST(i AS VARCHAR) || ' THEN ' || pf__lit(paths[i])
                                        FOR i IN range(1, len(paths) + 1)], ' '), '') || ' END';

-- The message (SQL text) of a duplicate (qid, docno) in a run file, from columns <d>qid, <d>docno,
-- <d>lines (line numbers) and <d>tags (the run tags of those lines) and <g>hint (pf__ragged_sql's, NULL when
-- none): a line shifted by a blank inside its qid is named first, then lines with different tags are several
-- systems in one file, as pf.read_run says (pairedframe.io.duplicates.run_duplicate_error).
CREATE OR REPLACE TEMP MACRO pf__run_dup_msg_sql(file_sql, d, g) AS
    '''run file '' || ' || file_sql || ' || '', line '' || CAST(' || d || 'lines[1] AS VARCHAR) || '': '' || '
    || 'CASE WHEN ' || g || 'hint IS NOT NULL THEN ' || g || 'hint '
    || 'WHEN len(' || d || 'tags) > 1 THEN ''the file holds several run tags (at least '' || array_to_string(['
    || 'pf__lit(t) FOR t IN ' || d || 'tags], '', '') || ''): several systems in one file, which is read as one system '
    || '(named after the file or by system := ...), so their rows collide: '' ELSE '''' END '
    || '|| ''duplicate (qid, docno) = ('' || ' || d || 'qid || '', '' || ' || d || 'docno || '') in run, also on line(s) '' '
    || '|| CAST(' || d || 'lines[2:6] AS VARCHAR) || CASE WHEN ' || g || 'hint IS NOT NULL THEN ''; remove the blank'' '
    || 'WHEN len(' || d || 'tags) > 1 THEN ''; give each system its own '
    || 'file (split it by the 6th field) or a table with a system column'' ELSE '
    || pf__lit('; ' || pf__duplicate_rule() || ', remove them') || ' END';

-- SQL of the CTEs pf_dfile, pf_usual, pf_q0, pf_twins and pf_ragged, after a CTE pf_dup (file_no, qid, docno, lines;
-- at most one row). pf_ragged's column `hint` says that a line of the duplicate reads shifted by a blank inside its
-- qid (or, failing that, its docno), as
-- pairedframe.io.duplicates.ragged_cause tells it: more fields than the file's most common count (ties to the
-- fewer), and that count's most common 2nd field (ties to the first in code-point order: Q0) coming as many
-- fields late; no row otherwise. Only the duplicate's file is read again, and only when there is one (a semi join).
CREATE OR REPLACE TEMP MACRO pf__ragged_sql(paths, names) AS
    'pf_dfile AS MATERIALIZED (SELECT r.qid, r.docno, r.line_no, r.fields FROM ('
    || pf__run_rows_sql(paths, names, cols := 'qid, docno, line_no, fields') || ') AS r SEMI JOIN pf_dup AS d '
    || 'ON r.file_no = d.file_no), '
    || 'pf_usual AS (SELECT len(fields) AS usual FROM pf_dfile GROUP BY len(fields) ORDER BY count(*) DESC, usual LIMIT 1), '
    || 'pf_q0 AS (SELECT fields[2] AS q0 FROM pf_dfile WHERE len(fields) = (SELECT usual FROM pf_usual) GROUP BY fields[2] '
    || 'ORDER BY count(*) DESC, q0 LIMIT 1), '
    || 'pf_twins AS (SELECT r.* FROM pf_dfile AS r, pf_dup AS d WHERE r.qid = d.qid AND r.docno = d.docno), '
    || 'pf_ragged AS (SELECT hint FROM (SELECT 1 AS k, r.line_no, ''likely a blank inside the qid of line '' '
    || '|| CAST(r.line_no AS VARCHAR) || '' ('' '
    || '|| CAST(len(r.fields) AS VARCHAR) || '' fields where most lines have '' || CAST(u.usual AS VARCHAR) || '', '' '
    || '|| pf__lit(q.q0) || '' its field '' || CAST(2 + len(r.fields) - u.usual AS VARCHAR) || ''): '' AS hint '
    || 'FROM pf_twins AS r, pf_usual AS u, pf_q0 AS q '
    || 'WHERE len(r.fields) > u.usual AND u.usual > 1 AND r.fields[2] <> q.q0 '
    || 'AND r.fields[2 + len(r.fields) - u.usual] = q.q0 '
    -- inside the docno: 6-field lines are usual, the twins' 6th fields differ, their last fields agree
    || 'UNION ALL SELECT 2 AS k, r.line_no, ''likely a blank inside the docno of line '' '
    || '|| CAST(r.line_no AS VARCHAR) || '' ('' || CAST(len(r.fields) AS VARCHAR) || '' fields where most lines have 6; '' '
    || '|| ''fields are split on blanks, so its run tag reads as '' || pf__lit(r.fields[6]) || ''): '' AS hint '
    || 'FROM pf_twins AS r, pf_usual AS u, pf_q0 AS q WHERE u.usual = 6 AND len(r.fields) > 6 AND r.fields[2] = q.q0 '
    || 'AND (SELECT count(DISTINCT t.fields[6]) > 1 AND count(DISTINCT t.fields[len(t.fields)]) = 1 FROM pf_twins AS t)) '
    || 'ORDER BY k, line_no LIMIT 1)';

-- SQL of the run table of files: rows checked, then duplicates and empty files refused.
CREATE OR REPLACE TEMP MACRO pf__read_run_sql(paths, names) AS
    'WITH pf_rows AS MATERIALIZED (' || pf__run_rows_sql(paths, names) || '), '
    || 'pf_dup AS (SELECT file_no, qid, docno, list(line_no ORDER BY line_no) AS lines, CAST([] AS VARCHAR[]) AS tags '
    || 'FROM pf_rows GROUP BY file_no, qid, docno HAVING count(*) > 1 ORDER BY file_no, lines[1] LIMIT 1), '
    || pf__ragged_sql(paths, names) || ', '
    || 'pf_found AS (' || pf__found_sql(paths) || '), '
    -- a missing file first, then the first file without data lines
    || 'pf_empty AS (SELECT file_no, found FROM pf_found WHERE file_no NOT IN (SELECT file_no FROM pf_rows) '
    || 'ORDER BY coalesce(found = 0, false) DESC, file_no LIMIT 1), '
    || 'pf_ok AS (SELECT CASE WHEN e.found = 0 THEN error('
    || pf__no_lines_msg_sql('run', '(SELECT ' || replace(pf__file_name_sql(paths), 'file_no', 'e.file_no') || ')', 'e.', '') || ') '
    || 'WHEN d.file_no IS NOT NULL THEN error('
    || pf__run_dup_msg_sql('(SELECT ' || replace(pf__file_name_sql(paths), 'file_no', 'd.file_no') || ')', 'd.', 'g.') || ') '
    || 'WHEN e.file_no IS NOT NULL THEN error('
    || pf__no_lines_msg_sql('run', '(SELECT ' || replace(pf__file_name_sql(paths), 'file_no', 'e.file_no') || ')', 'e.', '')
    || ') ELSE true END AS ok FROM (SELECT 1) AS one LEFT JOIN pf_empty e ON true LEFT JOIN pf_dup d ON true '
    || 'LEFT JOIN pf_ragged g ON true) '
    || 'SELECT system, qid, docno, score FROM pf_rows WHERE (SELECT ok FROM pf_ok)';

-- SQL of the checked qrels table of one file (qid, docno, rel); `hint` follows "no such file".
CREATE OR REPLACE TEMP MACRO pf__read_qrels_sql(path, hint := '') AS
    'WITH pf_rows AS MATERIALIZED (SELECT qid, docno, rel, line_no FROM pf__qrels_file(' || pf__lit(path) || ')), '
    || 'pf_dup AS (SELECT qid, docno, list(line_no ORDER BY line_no) AS lines FROM pf_rows '
    || 'GROUP BY qid, docno HAVING count(*) > 1 ORDER BY lines[1] LIMIT 1), '
    || 'pf_ok AS (SELECT CASE WHEN d.qid IS NOT NULL THEN error(' || pf__lit('qrels file ' || path || ', line ')
    || ' || CAST(d.lines[1] AS VARCHAR) || '': duplicate (qid, docno) = ('' || d.qid || '', '' || d.docno '
    || '|| '') in qrels, also on line(s) '' || CAST(d.lines[2:6] AS VARCHAR) || ' || pf__lit('; ' || pf__duplicate_rule() || ', remove them') || ') '
    || 'WHEN n.n = 0 THEN error(' || pf__no_lines_msg_sql('qrels', pf__lit(path), 'f.', hint) || ') ELSE true END AS ok '
    || 'FROM (SELECT count(*) AS n FROM pf_rows) n LEFT JOIN pf_dup d ON true, (' || pf__found_sql([path]) || ') f) '
    || 'SELECT qid, docno, rel FROM pf_rows WHERE (SELECT ok FROM pf_ok)';

-- pf_read_run(path [, system := name or [names]]): system, qid, docno, score of one run file or a
-- list of them. Raises on a malformed line, a non-numeric or non-finite score, a duplicate
-- (qid, docno) in one file, an empty file, a glob pattern, a missing file (DuckDB's own error before 2.0).
CREATE OR REPLACE TEMP MACRO pf_read_run(path, system := NULL) AS TABLE
SELECT * FROM query(pf__read_run_sql(pf__paths(pf__aslist(path), 'pf_read_run', 'path'),
                                     pf__systems(pf__paths(pf__aslist(path), 'pf_read_run', 'path'), system, 'pf_read_run')));

-- pf_read_qrels(path): qid, docno, rel of a qrels file. Raises on a line without exactly 4 fields,
-- a grade that is not an integer, a duplicate (qid, docno), an empty or missing file.
CREATE OR REPLACE TEMP MACRO pf_read_qrels(path) AS TABLE
SELECT * FROM query(pf__read_qrels_sql(path));
