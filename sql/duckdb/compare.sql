-- pf_compare: the paired t-test of pairedframe.stats.ttest.paired_t_test in SQL, for each system
-- against a baseline and each measure, from DuckDB's own aggregates: per-query deltas d = system -
-- baseline over the queries both have a value for, their mean, sd (n - 1), se = sd / sqrt(n), t =
-- mean / se, df = n - 1; the two-sided p-value 2 P(T > |t|) = I_{df/(df+t^2)}(df/2, 1/2), the
-- regularised incomplete beta function by its continued fraction (Numerical Recipes' betacf, run as
-- a recursive CTE); the interval mean +- q se with q the t quantile: pf__t_quantiles() ships them
-- for df 1..1000 (scipy's stdtrit), Hill's expansion (Abramowitz & Stegun 26.7.5) beyond (relative
-- error < 3e-14 there). A p below the smallest normal double (2.2250738585072014e-308), where scipy's
-- tail keeps few digits and then underflows, is the smallest positive double (5e-324, math.ulp(0.0)),
-- as pairedframe.stats.ttest.t_pvalue reports it (not this fraction's subnormal): never exactly 0. Zero
-- spread (max - min <= 1e-12 max|d|) follows pf.compare's rule, as paired_t_test does: the exact
-- sign-flip p-value (2^(1-n), 1 for all-zero deltas) and the range of means n equal deltas c allow,
-- [c - s (c + w), c + s (w - c)] with s = 1 - (alpha/2)^(1/n) and w = hi - lo the width of the
-- measure's range (pf__range_sql; unbounded: the whole line), never a point. Every interval is then
-- clipped to the range of a mean delta, [-w, w], as pf.compare clips
-- (pairedframe.comparison.interval_range.delta_ranges): no range where the measure has none, nor
-- where a mean or the delta lies outside it (beyond 1e-9 of the bound). Resampling (bootstrap,
-- randomisation) stays in Python (pf.compare).

-- The comparison's SQL, after the evaluation's CTEs (pf_values).
-- NR's guard against a zero denominator in the continued fraction.
CREATE OR REPLACE TEMP MACRO pf__cf_fix(x) AS CASE WHEN abs(x) < 1e-300 THEN 1e-300 ELSE x END;

-- The range lo, hi of one query's value of the measure struct m as SQL text (two values), NULL on an
-- unbounded side (Measure.value_range: the family's, none for a gain map with a negative gain but RBP's).
CREATE OR REPLACE TEMP MACRO pf__range_sql(m) AS
    CASE WHEN pf__family(m['family']).uses_gain AND m['family'] <> 'RBP'
              AND len([x FOR x IN coalesce(m['gains'], []) IF x['g'] < 0]) > 0
              THEN 'CAST(NULL AS DOUBLE), CAST(NULL AS DOUBLE)'
         ELSE 'CAST(' || pf__sql_double(pf__family(m['family']).lo) || ' AS DOUBLE), CAST('
              || pf__sql_double(pf__family(m['family']).hi) || ' AS DOUBLE)' END;

-- "x lies outside [lo, hi]" as SQL text (x, lo, hi: SQL texts), with pf.compare's tolerance of 1e-9 of the bound.
CREATE OR REPLACE TEMP MACRO pf__outside_sql(x, lo, hi) AS
    '(' || x || ' < ' || lo || ' - 1e-9 * abs(' || lo || ') OR ' || x || ' > ' || hi || ' + 1e-9 * abs(' || hi || '))';

-- The width w of the range of a mean delta [-w, w] as SQL text (arguments: SQL texts of the two means, the
-- delta and the range lo, hi of one query's value): hi - lo, NULL (nothing clipped) where the range is unknown
-- or where a mean or the delta lies outside it -- values on another scale (pf.compare warns and does not clip;
-- pairedframe.comparison.interval_range.delta_ranges).
CREATE OR REPLACE TEMP MACRO pf__delta_width_sql(baseline_mean, system_mean, delta, lo, hi) AS
    'CASE WHEN ' || pf__outside_sql(baseline_mean, lo, hi) || ' OR ' || pf__outside_sql(system_mean, lo, hi) || ' OR '
    || pf__outside_sql(delta, '(' || lo || ' - ' || hi || ')', '(' || hi || ' - ' || lo || ')') || ' THEN NULL ELSE '
    || hi || ' - ' || lo || ' END';

-- A list of doubles as exact SQL text.
CREATE OR REPLACE TEMP MACRO pf__double_list_sql(xs) AS
    'CAST([' || coalesce(array_to_string([pf__lit(CAST(x AS VARCHAR)) FOR x IN xs], ', '), '') || '] AS DOUBLE[])';

-- ' (run file <path>)' after a system's name as SQL text (sys: SQL text of the system), for run files
-- (their names may be given by system :=); '' for tables, whose system column names the systems.
CREATE OR REPLACE TEMP MACRO pf__run_file_sql(o, sys) AS
    CASE WHEN o['tables'] THEN '''''' ELSE '''' || ' (run file '' || ' || pf__sql_list(o['paths']) || '[list_position('
                                          || pf__sql_list(o['names']) || ', ' || sys || ')] || '')''' END;

-- The order of systems in a message as SQL text: the order of the run files given, by name for tables.
CREATE OR REPLACE TEMP MACRO pf__system_order_sql(o, sys) AS
    CASE WHEN o['tables'] THEN sys ELSE 'list_position(' || pf__sql_list(o['names']) || ', ' || sys || ')' END;

-- '[010] are not in the qrels, whose queries are e.g. [007, 008, 009]: ...' as SQL text, for the queries
-- pf_retrieved holds where `cond` (SQL text) holds: pf.evaluate's words for a run without a judged query.
CREATE OR REPLACE TEMP MACRO pf__unjudged_hint_sql(cond) AS
    '''e.g. '' || (SELECT CAST(list_sort(list_distinct(list(qid)))[1:3] AS VARCHAR) FROM pf_retrieved WHERE ' || cond || ') '
    || '|| '' are not in the qrels, whose queries are e.g. '' || (SELECT CAST(list_sort(list_distinct(list(qid)))[1:3] AS VARCHAR) '
    || 'FROM pf_qrels) || '': are run and qrels of the same collection and year?''';

-- The options with baseline and confidence_level checked. Checked here, in the list the query's
-- comprehension runs over (as pf__options checks its own): inside the comprehension, an error() whose
-- other branch folds to NULL became "syntax error at or near NULL" in the DuckDB 1.5 shell.
CREATE OR REPLACE TEMP MACRO pf__compare_options(o, baseline, confidence_level) AS
    struct_insert(o, baseline := CASE WHEN baseline IS NULL
                                      THEN error('pf_compare: give the baseline system, e.g. baseline := ''bm25''')
                                      ELSE CAST(baseline AS VARCHAR) END,
                  confidence_level := CASE WHEN TRY_CAST(confidence_level AS DOUBLE) IS NULL
                                                OR pf__t_quantiles(TRY_CAST(confidence_level AS DOUBLE)) IS NULL
                      THEN error('pf_compare: confidence_level must be one of ' || pf__confidence_levels()
                                 || ' (t quantiles are shipped for these), got '
                                 || coalesce(CAST(confidence_level AS VARCHAR), 'NULL'))
                      ELSE TRY_CAST(confidence_level AS DOUBLE) END);

-- o_in: pf__compare_options (baseline and confidence_level checked).
CREATE OR REPLACE TEMP MACRO pf__compare_sql(o_in, baseline, confidence_level) AS
    [CASE WHEN len([m FOR m IN o['ms'] IF pf__family(m['family']).not_comparable IS NOT NULL]) > 0
               THEN error('pf_compare: `measures`: ' || array_to_string([m['name'] || ' ' || pf__family(m['family']).not_comparable
                                                                       FOR m IN o['ms'] IF pf__family(m['family']).not_comparable IS NOT NULL], '; ')
                          || '; compare measures of the rankings (pf.compare leaves these out of a measure set with a warning)')
          WHEN NOT o['tables'] AND len(o['names']) = 1
               THEN error('pf_compare: nothing to compare: one run file (system ' || pf__lit(o['names'][1])
                          || '); give the baseline''s run and at least one more')
          WHEN NOT o['tables'] AND NOT list_contains(o['names'], baseline)
               THEN error('pf_compare: baseline ' || pf__lit(baseline) || ' is not one of the systems ' || CAST(o['names'] AS VARCHAR))
          -- tables hold their systems in a column: the baseline is checked against them when the query runs
          ELSE ', pf_sys AS (SELECT system, bool_or(qid IN (SELECT qid FROM pf_qrels)) AS judged FROM pf_retrieved '
               || 'WHERE (SELECT ok FROM pf_check) GROUP BY system), '
               -- the systems read (pf_retrieved), not those with values: a run without a judged query has none
               || 'pf_base AS (SELECT CASE WHEN NOT bool_or(system = ' || pf__lit(baseline) || ') THEN error('
               || pf__lit('pf_compare: baseline ' || pf__lit(baseline) || ' is not one of the systems ') || ' || '
               || '''['' || string_agg(DISTINCT system, '', '' ORDER BY system) || '']'') '
               -- one run alone: nothing to compare, an error as in pf.compare (never an empty result)
               || 'WHEN NOT bool_or(system <> ' || pf__lit(baseline) || ') THEN error('
               || pf__lit('pf_compare: nothing to compare: no system other than the baseline ' || pf__lit(baseline)) || ') '
               -- a run without a judged query: pf.evaluate leaves it out with a warning (complete: scores it 0),
               -- which SQL cannot give; named here, never a row dropped in silence
               || CASE WHEN o['complete'] THEN '' ELSE
                  'WHEN bool_or(system = ' || pf__lit(baseline) || ' AND NOT judged) THEN error('
                  || pf__lit('pf_compare: the baseline ' || pf__lit(baseline)) || ' || ' || pf__run_file_sql(o, pf__lit(baseline))
                  || ' || ' || pf__lit(' has no judged query in common with the qrels: nothing to compare against; its queries ')
                  || ' || ' || pf__unjudged_hint_sql('system = ' || pf__lit(baseline)) || ') '
                  || 'WHEN NOT bool_and(judged) THEN error(''pf_compare: '' || count(*) FILTER (WHERE NOT judged) || '' of '' || count(*) '
                  || '|| '' systems have no judged query in common with the qrels: '' || string_agg(pf__lit(system) || '
                  || pf__run_file_sql(o, 'system') || ', '', '' ORDER BY ' || pf__system_order_sql(o, 'system') || ') FILTER (WHERE NOT judged) || '
                  || pf__lit('; their queries ') || ' || ' || pf__unjudged_hint_sql('system IN (SELECT system FROM pf_sys WHERE NOT judged)')
                  || ' || ' || pf__lit(' (pf.compare leaves such a system out with a warning, which SQL cannot give: leave it out, '
                                       || 'or pass complete := true to score it 0 on every judged query, as trec_eval -c does)') || ') ' END
               -- after pf_check: a table's problem (a missing system column) is named, not read as one system
               || 'ELSE true END AS ok FROM pf_sys), '
               || 'pf_pairs AS (SELECT s.system, b.system AS baseline, s.measure, s.pos, s.qid, s.value AS a, b.value AS b, s.value - b.value AS d '
               || 'FROM pf_values s JOIN pf_values b ON b.qid = s.qid AND b.measure = s.measure AND b.system = ' || pf__lit(baseline)
               || ' AND s.system <> b.system WHERE s.value IS NOT NULL AND b.value IS NOT NULL AND (SELECT ok FROM pf_check) '
               || 'AND (SELECT ok FROM pf_base)), '
               || 'pf_stats AS (SELECT system, baseline, measure, pos, count(*) AS n, avg(a) AS system_mean, avg(b) AS baseline_mean, '
               || 'avg(d) AS delta, stddev_samp(d) AS sd, max(d) - min(d) <= 1e-12 * max(abs(d)) AS flat, max(abs(d)) AS max_abs '
               || 'FROM pf_pairs GROUP BY ALL), '
               -- each measure's range of values (by its place in the list), for zero spread and clipping
               || 'pf_range(pos, lo, hi) AS (VALUES ' || array_to_string(['(' || CAST(i AS VARCHAR) || ', ' || pf__range_sql(m) || ')'
                                                                         FOR m, i IN o['ms']], ', ') || '), '
               -- a comparison over fewer than 2 common queries is an error, as in pf.compare (never a dropped row)
               || 'pf_size AS (SELECT CASE WHEN count(*) = 0 THEN true ELSE error(''pf_compare: '' || count(*) || '' comparison(s) with the baseline '' || '
               || pf__lit(pf__lit(baseline)) || ' || '' have fewer than 2 common queries (the paired t-test needs 2); first: system='' '
               || '|| arg_min(k.system, [lpad(k.pos::VARCHAR, 9, ''0''), k.system]) || '', baseline='' || ' || pf__lit(baseline) || ' || '', measure='' '
               || '|| arg_min(k.measure, [lpad(k.pos::VARCHAR, 9, ''0''), k.system]) || '' ('' || CASE arg_min(coalesce(s.n, 0), [lpad(k.pos::VARCHAR, 9, ''0''), k.system]) '
               || 'WHEN 0 THEN ''no common query'' ELSE ''only one common query'' END || '')'') END AS ok FROM (SELECT s.system, m.measure, m.pos '
               -- every system read, with every measure: none left out because it has no value
               || 'FROM pf_sys s, (VALUES ' || array_to_string(['(' || pf__lit(m['name']) || ', ' || CAST(i AS VARCHAR) || ')' FOR m, i IN o['ms']], ', ')
               || ') AS m(measure, pos) WHERE s.system <> ' || pf__lit(baseline)
               -- pf_base first: a wrong baseline has no common query with anything, and must be said so
               || ') k LEFT JOIN pf_stats s ON s.system = k.system AND s.measure = k.measure WHERE (SELECT ok FROM pf_base) AND coalesce(s.n, 0) < 2), '
               || 'pf_t AS (SELECT *, sd / sqrt(n) AS se, n - 1 AS df, CASE WHEN flat THEN CASE WHEN delta = 0 THEN CAST(0 AS DOUBLE) ELSE delta / CAST(0 AS DOUBLE) END '
               || 'ELSE delta / (sd / sqrt(n)) END AS t FROM pf_stats WHERE n >= 2 AND (SELECT ok FROM pf_size)), '
               -- the width of the range of a mean delta; NULL where there is none (nothing clipped)
               || 'pf_w AS (SELECT t.*, ' || pf__delta_width_sql('t.baseline_mean', 't.system_mean', 't.delta', 'r.lo', 'r.hi')
               || ' AS width FROM pf_t t LEFT JOIN pf_range r ON r.pos = t.pos), '
               -- I_x(a, b) with x = df / (df + t^2), a = df / 2, b = 1 / 2; the fraction in x when x < (a + 1) / (a + b + 2), else in 1 - x
               || 'pf_beta AS (SELECT system, measure, df, t, CAST(df AS DOUBLE) / (df + t * t) AS x, CAST(df AS DOUBLE) / 2 AS a0, CAST(0.5 AS DOUBLE) AS b0, '
               || '(CAST(df AS DOUBLE) / (df + t * t)) < (CAST(df AS DOUBLE) / 2 + 1) / (CAST(df AS DOUBLE) / 2 + CAST(2.5 AS DOUBLE)) AS direct FROM pf_t WHERE NOT flat AND t <> 0), '
               || 'pf_cf(system, measure, a, b, x, m, c, d, h, done) AS (SELECT system, measure, a, b, x, 0, CAST(1 AS DOUBLE), '
               || 'CASE WHEN abs(1 - (a + b) * x / (a + 1)) < 1e-300 THEN CAST(1e300 AS DOUBLE) ELSE 1 / (1 - (a + b) * x / (a + 1)) END, '
               || 'CASE WHEN abs(1 - (a + b) * x / (a + 1)) < 1e-300 THEN CAST(1e300 AS DOUBLE) ELSE 1 / (1 - (a + b) * x / (a + 1)) END, false '
               || 'FROM (SELECT system, measure, CASE WHEN direct THEN a0 ELSE b0 END AS a, CASE WHEN direct THEN b0 ELSE a0 END AS b, '
               || 'CASE WHEN direct THEN x ELSE 1 - x END AS x FROM pf_beta) '
               || 'UNION ALL SELECT system, measure, a, b, x, m1, c2, d2, h1 * d2 * c2, abs(d2 * c2 - 1) < 1e-15 FROM ('
               || 'SELECT *, 1 / pf__cf_fix(1 + e2 * d1) AS d2, pf__cf_fix(1 + e2 / c1) AS c2 FROM ('
               || 'SELECT *, -(a + m1) * (a + b + m1) * x / ((a + 2 * m1) * (a + 1 + 2 * m1)) AS e2, h * d1 * c1 AS h1 FROM ('
               || 'SELECT *, 1 / pf__cf_fix(1 + e1 * d) AS d1, pf__cf_fix(1 + e1 / c) AS c1 FROM ('
               || 'SELECT *, m + 1 AS m1, (m + 1) * (b - m - 1) * x / ((a - 1 + 2 * (m + 1)) * (a + 2 * (m + 1))) AS e1 '
               || 'FROM pf_cf WHERE NOT done AND m < 1000))))), '
               || 'pf_p AS (SELECT b.system, b.measure, CASE WHEN b.direct THEN f.front * f.h / f.a ELSE 1 - f.front * f.h / f.a END AS p '
               || 'FROM pf_beta b JOIN (SELECT system, measure, arg_max(h, m) AS h, any_value(a) AS a, any_value(b) AS b, any_value(x) AS x, '
               || 'exp(lgamma(any_value(a) + any_value(b)) - lgamma(any_value(a)) - lgamma(any_value(b)) + any_value(a) * ln(any_value(x)) '
               || '+ any_value(b) * ln(1 - any_value(x))) AS front FROM pf_cf GROUP BY system, measure) f '
               || 'ON f.system = b.system AND f.measure = b.measure), '
               || 'pf_q AS (SELECT unnest(range(1, ' || CAST(len(pf__t_quantiles(confidence_level)) + 1 AS VARCHAR) || ')) AS df, unnest('
               || pf__double_list_sql(pf__t_quantiles(confidence_level)) || ') AS q) '
               -- a mean delta whose sum is float noise of its deltas is 0, as pf.compare's (comparison.assemble.noise_free_delta)
               || 'SELECT t.system, t.baseline, t.measure, t.n, t.baseline_mean, t.system_mean, '
               || 'CASE WHEN abs(t.delta) * t.n <= 1e-12 * t.max_abs THEN CAST(0 AS DOUBLE) ELSE t.delta END AS delta, '
               || 'CASE WHEN t.flat THEN CAST(0 AS DOUBLE) ELSE t.se END AS se, '
               || 't.t, t.df, CASE WHEN t.t = 0 THEN CAST(1 AS DOUBLE) WHEN t.flat THEN greatest(pow(CAST(2 AS DOUBLE), 1 - t.n), CAST(5e-324 AS DOUBLE)) '
               -- below the smallest normal double (the tail underflows at large |t|): the smallest positive double, as t_pvalue
               || 'WHEN p.p < CAST(2.2250738585072014e-308 AS DOUBLE) THEN CAST(5e-324 AS DOUBLE) '
               || 'ELSE least(CAST(1 AS DOUBLE), p.p) END AS pvalue, '
               -- zero spread: the range of means n equal deltas allow (pf.compare's; unbounded range: the whole line);
               -- either interval then clipped to [-w, w] (np.clip's order: up to -w, then down to w)
               || 'least(greatest(CASE WHEN t.flat THEN coalesce(t.delta - (1 - pow((1 - ' || pf__sql_double(confidence_level) || ') / 2, 1.0 / t.n)) * (t.delta + t.width), '
               || 'CAST(''-inf'' AS DOUBLE)) ELSE t.delta - coalesce(q.q, ' || pf__hill_sql(confidence_level) || ') * t.se END, '
               || 'coalesce(-t.width, CAST(''-inf'' AS DOUBLE))), coalesce(t.width, CAST(''inf'' AS DOUBLE))) AS ci_low, '
               || 'least(greatest(CASE WHEN t.flat THEN coalesce(t.delta + (1 - pow((1 - ' || pf__sql_double(confidence_level) || ') / 2, 1.0 / t.n)) * (t.width - t.delta), '
               || 'CAST(''inf'' AS DOUBLE)) ELSE t.delta + coalesce(q.q, ' || pf__hill_sql(confidence_level) || ') * t.se END, '
               || 'coalesce(-t.width, CAST(''-inf'' AS DOUBLE))), coalesce(t.width, CAST(''inf'' AS DOUBLE))) AS ci_high, '
               || pf__sql_double(confidence_level) || ' AS confidence_level '
               || 'FROM pf_w t LEFT JOIN pf_p p ON p.system = t.system AND p.measure = t.measure LEFT JOIN pf_q q ON q.df = t.df '
               || 'ORDER BY t.pos, t.system' END
     FOR o IN [o_in]][1];

-- pf_compare(run, qrels, measures, baseline := 'name' [, confidence_level := 0.95, and pf_evaluate's
-- options]): system, baseline, measure, n, baseline_mean, system_mean, delta, se, t, df, pvalue,
-- ci_low, ci_high, confidence_level: the two-sided paired t-test of each system against the baseline.
CREATE OR REPLACE TEMP MACRO pf_compare(run, qrels, measures, baseline := NULL, confidence_level := 0.95, complete := false,
                                        rel_level := 1, depth := NULL, score_precision := 'float64', system := NULL,
                                        tables := false) AS TABLE
SELECT * FROM query(['WITH RECURSIVE ' || substr(pf__eval_sql(o, 'ctes'), 6) || pf__compare_sql(o, o['baseline'], o['confidence_level'])
                     FOR o IN [pf__compare_options(pf__options(run, qrels, measures, complete, rel_level, depth, score_precision,
                                                               system, tables, 'pf_compare'), baseline, confidence_level)]][1]);
