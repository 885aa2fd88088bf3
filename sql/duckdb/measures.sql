-- Measure names parsed in DuckDB SQL as pairedframe.measures.parse_measure parses them: ir_measures
-- style (nDCG@10, AP(rel=2), RBP(p=0.8)@10, nDCG(dcg='exp-log2', judged_only=True)@10,
-- nDCG(gains={1:3,2:9})) and trec_eval style (ndcg_cut_10, ndcg_cut.10,20, P, map, utility.2,-1,0,0,
-- rbp.p=0.95,1=2, 11pt_avg..25,.5) and the nicknames official / all_trec / set. The names, forms and
-- parameter ranges come from the registry (pf__family, pf__form, pf__trec_split, pf__param_problem:
-- generated). A measure is a struct; every macro here is evaluated once, when DuckDB binds the query
-- (constant folding), so a bad name fails before any file is read. Lists and structs are bound once
-- as fields of structs passed down a pipeline of list comprehensions: a macro argument is copied
-- at every use, and DuckDB binds each lambda slowly, so the macros use few of them.

-- SQL literals of values (an int, a bool, a double written exactly), for the generated queries.
CREATE OR REPLACE TEMP MACRO pf__sql_int(x) AS coalesce(CAST(CAST(x AS BIGINT) AS VARCHAR), 'NULL');
CREATE OR REPLACE TEMP MACRO pf__sql_bool(x) AS CASE WHEN x THEN 'true' ELSE 'false' END;
CREATE OR REPLACE TEMP MACRO pf__sql_double(x) AS
    coalesce('CAST(' || pf__lit(CAST(CAST(x AS DOUBLE) AS VARCHAR)) || ' AS DOUBLE)', 'NULL');

-- C's atol and atof: the leading number of a text, 0 when there is none (inf and nan: pf__infnan).
CREATE OR REPLACE TEMP MACRO pf__atol(s) AS
    coalesce(TRY_CAST(nullif(regexp_extract(s, '^\s*([+-]?[0-9]+)', 1), '') AS BIGINT), 0);
CREATE OR REPLACE TEMP MACRO pf__atof(s) AS
    coalesce(TRY_CAST(nullif(regexp_extract(s, '^\s*([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)', 1), '') AS DOUBLE), 0.0);

-- A measure struct; NULL parameters mean "the family's default".
CREATE OR REPLACE TEMP MACRO pf__m(family, cutoff := NULL, rel := NULL, gain := 'linear', gains := NULL,
                                   judged_only := false, p := NULL, beta := NULL, recall := NULL, mult := NULL,
                                   levels := NULL, weights := NULL, collection_size := NULL) AS
    {'family': CAST(family AS VARCHAR), 'cutoff': CAST(cutoff AS BIGINT), 'rel': CAST(rel AS BIGINT),
     'gain': CAST(gain AS VARCHAR), 'gains': CAST(gains AS STRUCT(l BIGINT, g DOUBLE)[]),
     'judged_only': CAST(judged_only AS BOOLEAN), 'p': CAST(p AS DOUBLE), 'beta': CAST(beta AS DOUBLE),
     'recall': CAST(recall AS DOUBLE), 'mult': CAST(mult AS DOUBLE), 'levels': CAST(levels AS DOUBLE[]),
     'weights': CAST(weights AS DOUBLE[]), 'collection_size': CAST(collection_size AS BIGINT)};

-- Errors: "unknown measure 'x' (why)", "measure 'x': why"; pf__no_such also suggests close names.
CREATE OR REPLACE TEMP MACRO pf__unknown(name, why) AS error('unknown measure ' || pf__lit(name) || coalesce(' (' || why || ')', ''));
CREATE OR REPLACE TEMP MACRO pf__bad(name, why) AS error('measure ' || pf__lit(name) || ': ' || why);
CREATE OR REPLACE TEMP MACRO pf__no_such(name) AS
    error('unknown measure ' || pf__lit(name)
          || coalesce('; did you mean ' || nullif(coalesce(array_to_string(
                 [n FOR n IN pf__known_names() IF jaro_winkler_similarity(lower(n), lower(name)) >= 0.85][1:4], ', '), ''), '') || '?',
                 '; known: ' || coalesce(array_to_string(pf__known_names(), ', '), '')));

-- A number as C's atof / atol read it, and the texts of numbers (each regexp finds one number).
CREATE OR REPLACE TEMP MACRO pf__num_re() AS '[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?';

-- The last value given for key k in parallel lists keys, vals (NULL when not given).
CREATE OR REPLACE TEMP MACRO pf__kv(keys, vals, k) AS
    CASE WHEN list_contains(keys, k) THEN vals[len(keys) + 1 - list_position(list_reverse(keys), k)] END;

-- Parameters of a trec_eval "params" form (the text after the dot): comma-separated numbers read by
-- atof (utility, 11pt_avg, set_F, relstring) or name=value pairs (ndcg, G, rbp, ...).
CREATE OR REPLACE TEMP MACRO pf__doubles(text) AS
    CAST([coalesce(nullif(regexp_extract(x, '^\s*(' || pf__num_re() || ')', 1), ''), '0') FOR x IN string_split(text, ',')] AS DOUBLE[]);
CREATE OR REPLACE TEMP MACRO pf__pair_names(text) AS regexp_extract_all(',' || text, ',([^,=]*)=', 1);
CREATE OR REPLACE TEMP MACRO pf__pair_values(text) AS pf__doubles(coalesce(array_to_string(regexp_extract_all(text, '=([^,=]*)', 1), ','), ''));
-- The level=gain pairs whose name is an integer (gain_init.c skips the others, e.g. p), in the order
-- given; a grade given twice stays twice (pf__make refuses it).
CREATE OR REPLACE TEMP MACRO pf__pair_gains(names, vals) AS
    [{'l': TRY_CAST(names[i] AS BIGINT), 'g': vals[i]} FOR i IN range(1, len(names) + 1)
     IF regexp_full_match(names[i], '[+-]?[0-9]+')];
-- Whether C's atof reads the text as inf or nan (inf, infinity, nan in any case; 1e999 beyond the doubles).
CREATE OR REPLACE TEMP MACRO pf__infnan(v) AS
    regexp_matches(v, '^\s*[+-]?(inf|nan)', 'i')
    OR NOT isfinite(coalesce(TRY_CAST(nullif(regexp_extract(v, '^\s*(' || pf__num_re() || ')', 1), '') AS DOUBLE), 0.0));
-- Whether C's atof finds a number at the start of the text (inf and nan included): else it reads 0.
CREATE OR REPLACE TEMP MACRO pf__has_number(v) AS regexp_matches(v, '^\s*[+-]?([0-9]|\.[0-9]|inf|nan)', 'i');
-- Whether it is a C99 hexadecimal float (0x10, 0x1p3), refused as the file readers refuse one.
CREATE OR REPLACE TEMP MACRO pf__hex(v) AS regexp_matches(v, '^\s*[+-]?0[xX]\.?[0-9a-fA-F]');
-- The refusal of the first parameter of a trec_eval parameter text (comma-separated numbers, or
-- name=value pairs when `pairs`) that is no number (atof would read 0), a hexadecimal float or not finite, worded as
-- parse_measure words it; NULL when every one is a finite number.
CREATE OR REPLACE TEMP MACRO pf__nonfinite(text, pairs) AS
    [CASE WHEN pairs AND regexp_full_match(split_part(nf['i'], '=', 1), '[+-]?[0-9]+')
          THEN 'gain ' || pf__lit(nf['v']) || ' of grade ' || CAST(TRY_CAST(split_part(nf['i'], '=', 1) AS BIGINT) AS VARCHAR)
          ELSE 'parameter ' || pf__lit(nf['i']) END
     || CASE WHEN pf__hex(nf['v']) THEN ' is not a number (a C99 hexadecimal float, which glibc''s atof reads: write it in decimal)'
             WHEN pf__has_number(nf['v']) THEN ' is not a finite number' ELSE ' is not a number (trec_eval would read it as 0)' END
     FOR nf IN [{'i': nf_x, 'v': CASE WHEN pairs THEN regexp_extract(nf_x, '=(.*)$', 1) ELSE nf_x END}
                FOR nf_x IN string_split(text, ',')]
     IF NOT pf__has_number(nf['v']) OR pf__hex(nf['v']) OR pf__infnan(nf['v'])][1];
-- The first grade given twice in a gain list, at its second place (NULL when none is).
CREATE OR REPLACE TEMP MACRO pf__twice(gains) AS
    [tw_g['l'] FOR tw_g, tw_i IN coalesce(gains, CAST([] AS STRUCT(l BIGINT, g DOUBLE)[]))
     IF list_position([tw_h['l'] FOR tw_h IN gains], tw_g['l']) < tw_i][1];

-- Why a cutoff list (the text after P.) is none, when an item has no leading integer (atol would read 0
-- there, a cutoff never written: P.5,P.10); NULL otherwise, and for no list.
CREATE OR REPLACE TEMP MACRO pf__not_cutoff(params) AS
    CASE WHEN params = '' THEN 'the cutoff list is empty'
         ELSE [CASE WHEN nc_p = '' THEN 'a cutoff is missing' ELSE pf__lit(nc_p) || ' is not a cutoff' END
               FOR nc_p IN string_split(params, ',') IF NOT regexp_matches(nc_p, '^\s*[+-]?[0-9]')][1] END;

-- Measures of a trec_eval name x (its form x.f, family x.spec, split x.s and sorted values x.v).
CREATE OR REPLACE TEMP MACRO pf__trec(x) AS
    CASE
        WHEN x['f']['kind'] = 'single' AND x['s']['params'] IS NOT NULL THEN pf__unknown(x['t'], x['f']['name'] || ' takes no cutoff or parameters')
        WHEN x['f']['kind'] = 'single' THEN [pf__m(x['f']['family'])]
        WHEN x['f']['kind'] = 'params' AND x['s']['params'] IS NULL THEN [pf__m(x['f']['family'], cutoff := x['f']['bare_cutoff'], p := x['f']['bare_p'])]
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] IN ('gains', 'rbp', 'rbp_resid')
             AND NOT regexp_full_match(x['s']['params'], '[^,=]+=[^,=]*(,[^,=]+=[^,=]*)*')
             THEN pf__bad(x['t'], 'malformed pair parameters in ' || pf__lit(x['s']['params']) || ': use level=gain pairs such as 1=3,2=9')
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] = 'relstring' AND x['s']['params'] IS NOT NULL
             AND NOT pf__has_number(split_part(x['s']['params'], ',', 1))
             THEN pf__bad(x['t'], pf__lit(split_part(x['s']['params'], ',', 1)) || ' is not a cutoff (relstring takes the number '
                                  || 'of documents it shows, a positive integer, e.g. relstring.20)')
        WHEN x['f']['kind'] IN ('params', 'double_cutoffs') AND x['s']['params'] IS NOT NULL
             AND pf__nonfinite(x['s']['params'], coalesce(x['f']['reader'] IN ('gains', 'rbp', 'rbp_resid'), false)) IS NOT NULL
             THEN pf__bad(x['t'], pf__nonfinite(x['s']['params'], coalesce(x['f']['reader'] IN ('gains', 'rbp', 'rbp_resid'), false)))
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] = 'rbp_resid'  -- its gains are not used, but checked (parse_measure)
             AND pf__twice(pf__pair_gains(pf__pair_names(x['s']['params']), pf__pair_values(x['s']['params']))) IS NOT NULL
             THEN pf__bad(x['t'], 'duplicate grade ' || CAST(pf__twice(pf__pair_gains(pf__pair_names(x['s']['params']), pf__pair_values(x['s']['params']))) AS VARCHAR) || ' in gains')
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] IN ('gains', 'rbp', 'rbp_resid') THEN
             [pf__m(x['f']['family'],
                    gains := CASE WHEN x['f']['reader'] <> 'rbp_resid'
                                  THEN nullif(pf__pair_gains(pf__pair_names(x['s']['params']), pf__pair_values(x['s']['params'])), []) END,
                    p := CASE WHEN x['f']['reader'] <> 'gains'
                              THEN coalesce(pf__kv(pf__pair_names(x['s']['params']), pf__pair_values(x['s']['params']), 'p'), x['f']['bare_p']) END)]
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] = 'relstring' THEN [pf__m(x['f']['family'], cutoff := CAST(trunc(pf__doubles(x['s']['params'])[1]) AS BIGINT))]
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] = 'utility' AND len(pf__doubles(x['s']['params'])) <> 4
             THEN pf__bad(x['t'], 'utility needs 4 coefficients (improper number of coefficients: '
                               || CAST(len(pf__doubles(x['s']['params'])) AS VARCHAR) || ')')
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] = 'utility' THEN [pf__m(x['f']['family'], weights := pf__doubles(x['s']['params']))]
        WHEN x['f']['kind'] = 'params' AND x['f']['reader'] = 'levels' THEN [pf__m(x['f']['family'], levels := pf__doubles(x['s']['params']))]
        WHEN x['f']['kind'] = 'params' THEN [pf__m(x['f']['family'], beta := pf__doubles(x['s']['params'])[1])]
        WHEN x['s']['params'] IS NULL AND len(x['f']['defaults']) = 0 THEN pf__unknown(x['t'], x['f']['name'] || ' needs a cutoff, e.g. ' || x['f']['name'] || '_10')
        WHEN x['f']['kind'] = 'long_cutoffs' AND x['s']['sep'] = '_' AND NOT regexp_full_match(x['s']['params'], '[0-9]+')
             THEN pf__unknown(x['t'], x['f']['name'] || '_<k> takes a positive integer cutoff')
        WHEN x['f']['kind'] = 'long_cutoffs' AND pf__not_cutoff(x['s']['params']) IS NOT NULL
             THEN pf__bad(x['t'], pf__not_cutoff(x['s']['params']) || ' (a cutoff list is positive integers separated by commas, e.g. '
                                  || x['f']['name'] || '.5,10)')
        WHEN x['f']['kind'] = 'long_cutoffs' AND x['v'][1] <= 0
             THEN pf__bad(x['t'], 'cutoff=' || CAST(CAST(x['v'][1] AS BIGINT) AS VARCHAR) || ' is out of range: a cutoff must be a positive integer')
        -- the name is right, a cutoff is given twice (trec_eval refuses it too): the smallest such, as %g (parse_measure's :g)
        WHEN x['s']['params'] IS NOT NULL AND len(list_distinct(x['v'])) < len(x['v'])
             THEN pf__bad(x['t'], 'duplicate cutoff ' || printf('%g', [v FOR v, i IN x['v'] IF list_position(x['v'], v) < i][1]))
        ELSE [pf__m(x['f']['family'], cutoff := CASE WHEN x['f']['kind'] = 'long_cutoffs' THEN CAST(v AS BIGINT) END,
                    recall := CASE WHEN x['spec']['at'] = 'recall' THEN v END, mult := CASE WHEN x['spec']['at'] = 'mult' THEN v END)
              FOR v IN x['v']] END;

-- ir_measures parameter values, each read as one kind (NULL when the text is not of that kind).
CREATE OR REPLACE TEMP MACRO pf__v_int(v) AS TRY_CAST(regexp_extract(v, '^\s*([+-]?[0-9]+)\s*$', 1) AS BIGINT);
CREATE OR REPLACE TEMP MACRO pf__v_num(v) AS TRY_CAST(regexp_extract(v, '^\s*(' || pf__num_re() || ')\s*$', 1) AS DOUBLE);
CREATE OR REPLACE TEMP MACRO pf__v_bool(v) AS
    CASE regexp_extract(v, '^\s*(\w+)\s*$', 1) WHEN 'True' THEN true WHEN 'true' THEN true
                                              WHEN 'False' THEN false WHEN 'false' THEN false END;
CREATE OR REPLACE TEMP MACRO pf__v_str(v) AS
    coalesce(nullif(regexp_extract(v, '^\s*''([^'']*)''\s*$', 1), ''), nullif(regexp_extract(v, '^\s*"([^"]*)"\s*$', 1), ''),
             nullif(regexp_extract(v, '^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*$', 1), ''));
CREATE OR REPLACE TEMP MACRO pf__v_nums(v) AS
    CASE WHEN regexp_full_match(v, '\s*[(\[]\s*' || pf__num_re() || '(\s*,\s*' || pf__num_re() || ')*\s*,?\s*[)\]]\s*')
         THEN CAST(regexp_extract_all(v, pf__num_re()) AS DOUBLE[]) END;
CREATE OR REPLACE TEMP MACRO pf__v_gains(v) AS
    CASE WHEN regexp_full_match(v, '\s*\{\s*\}\s*') THEN []
         WHEN regexp_full_match(v, '\s*\{\s*[+-]?[0-9]+\s*:\s*' || pf__num_re() || '(\s*,\s*[+-]?[0-9]+\s*:\s*' || pf__num_re() || ')*\s*,?\s*\}\s*')
         THEN [{'l': CAST(regexp_extract_all(v, '([+-]?[0-9]+)\s*:', 1)[i] AS BIGINT),
                'g': CAST(regexp_extract_all(v, ':\s*(' || pf__num_re() || ')', 1)[i] AS DOUBLE)}
               FOR i IN range(1, len(regexp_extract_all(v, '([+-]?[0-9]+)\s*:', 1)) + 1)] END;

-- A value read as kind `kind`, or an error naming the parameter (NULL when not given).
CREATE OR REPLACE TEMP MACRO pf__want(value, parsed, key, kind, name) AS
    CASE WHEN value IS NULL OR parsed IS NOT NULL THEN parsed
         ELSE pf__unknown(name, 'bad parameter ' || key || '=' || trim(value) || ': expected ' || kind) END;

-- One ir_measures parameter: name = literal ({...}, (...), [...], '...', "...", or a bare value).
CREATE OR REPLACE TEMP MACRO pf__ir_item() AS
    '([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\{[^{}]*\}|\([^()]*\)|\[[^\[\]]*\]|''[^'']*''|"[^"]*"|[^,(){}\[\]=''"]+)';

-- The parameters of an ir_measures name by key (the raw texts; NULL when not given).
CREATE OR REPLACE TEMP MACRO pf__ir_values(keys, vals) AS
    {'cutoff': pf__kv(keys, vals, 'cutoff'), 'rel': pf__kv(keys, vals, 'rel'),
     'dcg': coalesce(pf__kv(keys, vals, 'dcg'), pf__kv(keys, vals, 'gain')), 'gains': pf__kv(keys, vals, 'gains'),
     'judged_only': pf__kv(keys, vals, 'judged_only'), 'p': pf__kv(keys, vals, 'p'), 'beta': pf__kv(keys, vals, 'beta'),
     'recall': pf__kv(keys, vals, 'recall'), 'mult': pf__kv(keys, vals, 'mult'), 'levels': pf__kv(keys, vals, 'levels'),
     'weights': pf__kv(keys, vals, 'weights'), 'collection_size': pf__kv(keys, vals, 'collection_size')};

-- The measure of an ir_measures name x (family x.spec, @ text x.at, parameters x.keys / x.kv, the
-- keys its family does not take x.bad).
CREATE OR REPLACE TEMP MACRO pf__ir_measure(x) AS
    CASE
        WHEN NOT regexp_full_match(x['args'], '\s*(' || pf__ir_item() || '(\s*,\s*' || pf__ir_item() || ')*)?\s*,?\s*')
             THEN pf__unknown(x['t'], 'bad parameter: name each parameter, e.g. AP(rel=2)')
        WHEN len(x['bad']) > 0 THEN pf__unknown(x['t'], 'bad parameter ' || pf__lit(x['bad'][1]) || ': ' || x['spec']['key'] || ' takes '
                                                  || coalesce(nullif(coalesce(array_to_string(x['spec']['allowed'], ', '), ''), ''), 'no parameters'))
        WHEN x['kv']['rel'] IS NOT NULL AND x['spec']['rel_rule'] = 'none' AND x['spec']['key'] <> 'NumRet'
             THEN pf__unknown(x['t'], x['spec']['key'] || ' does not use a relevance level (rel=)')
        WHEN (x['kv']['gains'] IS NOT NULL OR x['kv']['dcg'] IS NOT NULL) AND NOT x['spec']['uses_gain'] THEN pf__unknown(x['t'], x['spec']['key'] || ' has no gain parameter')
        WHEN x['at'] <> '' AND pf__v_num(x['at']) IS NULL THEN pf__unknown(x['t'], '@ takes a number')
        WHEN x['at'] <> '' AND x['spec']['at'] = 'cutoff' AND pf__v_int(x['at']) IS NULL
             THEN pf__bad(x['t'], 'cutoff=' || CAST(pf__v_num(x['at']) AS VARCHAR) || ' is out of range: a cutoff must be a positive integer')
        WHEN x['kv']['rel'] IS NOT NULL AND pf__v_int(x['kv']['rel']) IS NULL THEN pf__unknown(x['t'], 'bad parameter rel=' || trim(x['kv']['rel']) || ': use rel=<int>')
        WHEN x['kv']['dcg'] IS NOT NULL AND coalesce(pf__v_str(x['kv']['dcg']), '') NOT IN ('linear', 'log2', 'exp', 'exp-log2')
             THEN pf__unknown(x['t'], 'bad parameter dcg=' || trim(x['kv']['dcg']) || ': use dcg=''log2'' or dcg=''exp-log2''')
        WHEN x['kv']['gains'] IS NOT NULL AND pf__v_gains(x['kv']['gains']) IS NULL THEN pf__unknown(x['t'], 'bad parameter gains: use gains={grade: gain, ...}')
        ELSE [pf__m(CASE WHEN x['spec']['key'] = 'NumRet' AND x['kv']['rel'] IS NOT NULL THEN 'NumRelRet' ELSE x['spec']['key'] END,
                    cutoff := CASE WHEN x['spec']['at'] = 'cutoff' THEN coalesce(pf__v_int(x['at']), pf__want(x['kv']['cutoff'], pf__v_int(x['kv']['cutoff']), 'cutoff', 'int', x['t'])) END,
                    rel := pf__v_int(x['kv']['rel']),
                    gain := CASE WHEN pf__v_str(x['kv']['dcg']) IN ('exp', 'exp-log2') THEN 'exp' ELSE 'linear' END,
                    gains := pf__v_gains(x['kv']['gains']),
                    judged_only := coalesce(pf__want(x['kv']['judged_only'], pf__v_bool(x['kv']['judged_only']), 'judged_only', 'True or False', x['t']), false),
                    p := pf__want(x['kv']['p'], pf__v_num(x['kv']['p']), 'p', 'float', x['t']),
                    beta := pf__want(x['kv']['beta'], pf__v_num(x['kv']['beta']), 'beta', 'float', x['t']),
                    recall := CASE WHEN x['spec']['at'] = 'recall' AND x['at'] <> '' THEN pf__v_num(x['at'])
                                   ELSE pf__want(x['kv']['recall'], pf__v_num(x['kv']['recall']), 'recall', 'float', x['t']) END,
                    mult := CASE WHEN x['spec']['at'] = 'mult' AND x['at'] <> '' THEN pf__v_num(x['at'])
                                 ELSE pf__want(x['kv']['mult'], pf__v_num(x['kv']['mult']), 'mult', 'float', x['t']) END,
                    levels := pf__want(x['kv']['levels'], pf__v_nums(x['kv']['levels']), 'levels', 'floats', x['t']),
                    weights := pf__want(x['kv']['weights'], pf__v_nums(x['kv']['weights']), 'weights', 'floats', x['t']),
                    collection_size := pf__want(x['kv']['collection_size'], pf__v_int(x['kv']['collection_size']), 'collection_size', 'int', x['t']))]
        END;

-- m with its gains sorted, without the gains equal to their grade (NULL when none is left).
CREATE OR REPLACE TEMP MACRO pf__normal_gains(m) AS
    struct_pack(family := m['family'], cutoff := m['cutoff'], rel := m['rel'], gain := m['gain'],
                gains := nullif(list_sort([x FOR x IN coalesce(m['gains'], CAST([] AS STRUCT(l BIGINT, g DOUBLE)[])) IF x['g'] <> x['l']]), []),
                judged_only := m['judged_only'], p := m['p'], beta := m['beta'], recall := m['recall'], mult := m['mult'],
                levels := m['levels'], weights := m['weights'], collection_size := m['collection_size']);

-- A parsed measure checked as Measure checks it (a grade given twice in gains, as parse_measure;
-- cutoffs, @, relevance level, gains, parameter ranges) and normalised: gains sorted, gains equal to their grade and default parameters dropped.
CREATE OR REPLACE TEMP MACRO pf__make(m, spec, name) AS
    CASE
        WHEN pf__twice(m['gains']) IS NOT NULL THEN pf__bad(name, 'duplicate grade ' || CAST(pf__twice(m['gains']) AS VARCHAR) || ' in gains')
        WHEN m['cutoff'] IS NOT NULL AND m['cutoff'] < 1
             THEN pf__bad(name, 'cutoff=' || CAST(m['cutoff'] AS VARCHAR) || ' is out of range: a cutoff must be a positive integer')
        WHEN spec['at'] <> 'cutoff' AND m['cutoff'] IS NOT NULL
             THEN pf__unknown(name, m['family'] || '''s @ is its ' || spec['at'] || ' (a number such as ' || m['family'] || '@0.5), not a cutoff')
        WHEN (spec['at'] = 'recall' AND m['recall'] IS NULL) OR (spec['at'] = 'mult' AND m['mult'] IS NULL)
             THEN pf__unknown(name, m['family'] || ' needs its ' || spec['at'] || ', e.g. ' || m['family'] || '@0.5')
        WHEN spec['at'] = 'cutoff' AND spec['cutoff'] = 'none' AND m['cutoff'] IS NOT NULL THEN pf__unknown(name, m['family'] || ' takes no cutoff')
        WHEN spec['at'] = 'cutoff' AND spec['cutoff'] = 'required' AND m['cutoff'] IS NULL
             THEN pf__unknown(name, m['family'] || ' needs a cutoff, e.g. ' || m['family'] || '@10')
        WHEN m['rel'] IS NOT NULL AND m['rel'] < 0
             THEN pf__unknown(name, 'bad parameter rel=' || CAST(m['rel'] AS VARCHAR) || ': rel must be an integer >= 0 (negative grades mean unjudged)')
        WHEN m['gain'] = 'exp' AND len(coalesce(m['gains'], CAST([] AS STRUCT(l BIGINT, g DOUBLE)[]))) > 0 THEN pf__unknown(name, 'give either dcg=''exp-log2'' or gains=, not both')
        WHEN list_sort(CAST(m['gains'] AS STRUCT(l BIGINT, g DOUBLE)[]))[1]['l'] < 0
             THEN pf__unknown(name, 'bad gains: grade ' || CAST(list_sort(CAST(m['gains'] AS STRUCT(l BIGINT, g DOUBLE)[]))[1]['l'] AS VARCHAR) || ' must be an integer >= 0')
        WHEN strpos(lower(CAST(m['gains'] AS VARCHAR)), 'inf') > 0 OR strpos(lower(CAST(m['gains'] AS VARCHAR)), 'nan') > 0
             THEN pf__bad(name, 'bad gains: the gain of a grade must be a finite number')
        WHEN pf__param_problem(m) IS NOT NULL THEN pf__bad(name, pf__param_problem(m))
        WHEN spec['value_kind'] <> 'number'
             THEN pf__bad(name, m['family'] || ' is text-valued: pf_evaluate returns numbers only (pf.evaluate(...).text has it)')
        ELSE pf__param_defaults(pf__normal_gains(m)) END;

-- The canonical name (Measure.name) of a resolved measure; rel is named under a level other than 1.
CREATE OR REPLACE TEMP MACRO pf__name(m, spec, rel_level) AS
    m['family']
    || coalesce('(' || nullif(concat_ws(',',
           CASE WHEN spec['rel_rule'] <> 'none' AND m['rel'] IS NOT NULL AND (m['rel'] <> 1 OR rel_level <> 1)
                THEN 'rel=' || CAST(m['rel'] AS VARCHAR) END,
           CASE WHEN spec['uses_gain'] AND m['gain'] = 'exp' THEN 'dcg=''exp-log2''' END,
           CASE WHEN m['gains'] IS NOT NULL THEN 'gains={' || coalesce(array_to_string([CAST(x['l'] AS VARCHAR) || ':' || CAST(x['g'] AS VARCHAR) FOR x IN CAST(m['gains'] AS STRUCT(l BIGINT, g DOUBLE)[])], ','), '') || '}' END,
           CASE WHEN m['judged_only'] THEN 'judged_only=True' END,
           'beta=' || CAST(m['beta'] AS VARCHAR),
           'collection_size=' || CAST(m['collection_size'] AS VARCHAR),
           'levels=' || pf__tuple(m['levels']),
           'p=' || CAST(m['p'] AS VARCHAR),
           'weights=' || pf__tuple(m['weights'])), '') || ')', '')
    || CASE WHEN spec['at'] = 'recall' THEN '@' || CAST(m['recall'] AS VARCHAR)
            WHEN spec['at'] = 'mult' THEN '@' || CAST(m['mult'] AS VARCHAR)
            ELSE coalesce('@' || CAST(m['cutoff'] AS VARCHAR), '') END;

-- The gain map's key (Measure.gain_key, in SQL's number format), whether sums of its gains are exact
-- in any order (exact_gains: multiples of 2^-20 below 2^20) and a list parameter's key in pf_lists.
CREATE OR REPLACE TEMP MACRO pf__gain_key(m) AS
    CASE WHEN m['gains'] IS NOT NULL THEN 'map:' || CAST(m['gains'] AS VARCHAR) WHEN m['gain'] = 'exp' THEN 'exp' ELSE '' END;
CREATE OR REPLACE TEMP MACRO pf__exact_gains(gains) AS
    len([x FOR x IN coalesce(CAST(gains AS STRUCT(l BIGINT, g DOUBLE)[]), CAST([] AS STRUCT(l BIGINT, g DOUBLE)[])) IF NOT (abs(x['g']) < 1048576 AND x['g'] * 1048576 = floor(x['g'] * 1048576))]) = 0;
CREATE OR REPLACE TEMP MACRO pf__list_key(xs) AS CAST(xs AS VARCHAR);

-- m with its relevance level replaced.
CREATE OR REPLACE TEMP MACRO pf__with_rel(m, rel) AS
    struct_pack(family := m['family'], cutoff := m['cutoff'], rel := CAST(rel AS BIGINT), gain := m['gain'], gains := m['gains'],
                judged_only := m['judged_only'], p := m['p'], beta := m['beta'], recall := m['recall'], mult := m['mult'],
                levels := m['levels'], weights := m['weights'], collection_size := m['collection_size']);

-- rel_level checked as pf.evaluate checks it: a value of an integer type, >= 0 (not 2.0, not true).
-- TRY_CAST only: DuckDB before 1.5 folds a CAST of the constant argument in every branch, so a CAST
-- of 'x' raised its own conversion error before the check could word one.
CREATE OR REPLACE TEMP MACRO pf__level(x) AS
    CASE WHEN x IS NULL OR NOT regexp_full_match(typeof(x), 'U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)')
              OR coalesce(TRY_CAST(x AS HUGEINT) < 0, true)
         THEN error('rel_level must be an integer >= 0 (negative grades mean unjudged and are never relevant), got '
                    || CASE WHEN typeof(x) = 'VARCHAR' THEN pf__lit(x) ELSE coalesce(CAST(x AS VARCHAR), 'NULL') END)
         WHEN TRY_CAST(x AS BIGINT) IS NULL
         THEN error('rel_level must be at most 9223372036854775807 (grades are BIGINT), got ' || CAST(x AS VARCHAR))
         ELSE TRY_CAST(x AS BIGINT) END;

-- Whether complete := true sets the measure to 0 on a query the run lacks, where its ranking is one
-- unjudged placeholder document: trec_eval -c resets num_ret and unj_* there, and the measures named
-- exactly utility and rbp_resid. The rule is the registry's (Family.complete_reset, read by
-- pairedframe.evaluation.judgments.complete_resets too): 'all' of the family, or 'bare' only the
-- measure of the bare trec_eval name (pf__bare_name; a name given with parameters, utility.1,-1,0,0,
-- keeps the placeholder's value). m: normalised (parameters at their default are NULL).
CREATE OR REPLACE TEMP MACRO pf__placeholder_zero(m, trec_params) AS
    coalesce(pf__family(m['family']).complete_reset = 'all'
             OR (pf__family(m['family']).complete_reset = 'bare' AND NOT trec_params AND pf__bare_name(m)), false);

-- trec_eval's rule, as parse_measures follows it: a family named in trec_eval's syntax, bare or with
-- '.' parameters (P, P.5, rbp.p=0.8,1=3), is evaluated once, where first named, with the first
-- parameter list given (P and P.5: P.5 only; P.5 and P.10: P.5 only). Other names stay as given.
CREATE OR REPLACE TEMP MACRO pf__once_per_family(names) AS
    [[CASE WHEN NOT y['marked'] THEN y['t']
           ELSE y['s']['form'] || coalesce('.' || [z['s']['params'] FOR z IN ys
                                                    IF z['marked'] AND z['s']['form'] = y['s']['form']
                                                       AND z['s']['params'] IS NOT NULL][1], '') END
      FOR y, i IN ys IF NOT y['marked'] OR i = [j FOR z, j IN ys IF z['marked'] AND z['s']['form'] = y['s']['form']][1]]
     FOR ys IN [[{'t': t, 's': pf__trec_split(t),
                  'marked': pf__trec_split(t) IS NOT NULL
                            AND (pf__trec_split(t)['params'] IS NULL OR pf__trec_split(t)['sep'] = '.')}
                 FOR t IN names]]][1];

-- The names of `measures` (a name or a list; nicknames expanded; pf__once_per_family), each with its
-- trec_eval split s (pf__trec_split: NULL when it is not a trec_eval name) and its ir_measures parts r
-- (Family(k=v,...)@at or Family@at(k=v): word, args, at).
CREATE OR REPLACE TEMP MACRO pf__split_names(measures) AS
    [{'t': t, 's': pf__trec_split(t),
      'r': regexp_extract(t, '^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(((?:[^()]|\([^()]*\))*)\))?\s*(?:@\s*([^()@]+?))?\s*(?:\(((?:[^()]|\([^()]*\))*)\))?$',
                          ['word', 'args', 'at', 'args2'])}
     FOR t IN pf__once_per_family(flatten([coalesce(pf__nickname(trim(x)), [trim(x)]) FOR x IN pf__aslist(measures)]))];

-- Each split name with what the parsers read: its trec_eval form f, family spec and sorted values v;
-- or its ir_measures family spec, @ text, parameter keys and values.
CREATE OR REPLACE TEMP MACRO pf__name_parts(x) AS
    {'t': x['t'], 's': x['s'], 'f': pf__form(x['s']['form']), 'args': x['args'], 'at': trim(x['r']['at']),
     'spec': pf__family(coalesce(pf__form(x['s']['form']).family, pf__ir_family(x['r']['word']))),
     'keys': regexp_extract_all(x['args'], pf__ir_item(), 1), 'vals': regexp_extract_all(x['args'], pf__ir_item(), 2),
     'v': CASE WHEN x['s']['params'] IS NULL THEN pf__form(x['s']['form']).defaults
               WHEN pf__form(x['s']['form']).kind = 'long_cutoffs'
                    THEN list_sort(CAST([coalesce(nullif(regexp_extract(p, '^\s*([+-]?[0-9]+)', 1), ''), '0') FOR p IN string_split(x['s']['params'], ',')] AS DOUBLE[]))
               WHEN pf__form(x['s']['form']).kind = 'double_cutoffs' THEN list_sort(pf__doubles(x['s']['params'])) END};

-- The unchecked measures of each name ({m, t, trec_params: a trec_eval name with parameters}): trec_eval style, else ir_measures style, else an error (also for a
-- trec_eval-style name of a family trec_eval lacks, pf__lacking).
CREATE OR REPLACE TEMP MACRO pf__candidates(measures) AS
    flatten([[{'m': m, 't': x['t'], 'trec_params': x['s']['params'] IS NOT NULL}
              FOR m IN CASE WHEN pf__lacking(x['t']) IS NOT NULL THEN [error(pf__lacking(x['t']))]
                            WHEN x['s'] IS NOT NULL THEN pf__trec(x)
                            WHEN x['spec'] IS NULL THEN [pf__no_such(x['t'])]
                            ELSE pf__ir_measure(x) END]
             FOR x IN [struct_insert(y, kv := pf__ir_values(y['keys'], y['vals']),
                                     bad := [k FOR k IN y['keys'] IF NOT list_contains(y['spec']['allowed'] || ['gain', 'rel', 'gains', 'dcg'], k)])
                       FOR y IN [pf__name_parts(z)
                                 FOR z IN [struct_insert(w, args := concat_ws(',', nullif(w['r']['args'], ''), nullif(w['r']['args2'], '')))
                                           FOR w IN pf__split_names(measures)]]]]);

-- The measures without repeats (by name), in order; an error for none.
CREATE OR REPLACE TEMP MACRO pf__unique(ms_in) AS
    [[CASE WHEN len(ms) = 0 THEN error('no measures given')
           ELSE [x FOR x, i IN ms IF list_position(names, x['name']) = i] END
      FOR names IN [[y['name'] FOR y IN ms]]][1]
     FOR ms IN [ms_in]][1];

-- pf_measures(measures [, rel_level]): the measures named (a name or a list of names; nicknames
-- expand), checked as Measure checks them, resolved under rel_level (a family that takes a level and
-- names none uses it), named canonically and without repeats, in order: a list of structs.
-- rel_level is checked first, used or not (as pf.evaluate checks it). A NULL name is refused as pf.evaluate
-- refuses None: unchecked, it was dropped from a list, made a nameless struct, or broke the query's text.
CREATE OR REPLACE TEMP MACRO pf_measures(measures, rel_level := 1) AS
    CASE WHEN pf__level(rel_level) IS NULL THEN NULL
         WHEN list_contains([x IS NULL FOR x IN pf__aslist(measures)], true)
         THEN error('`measures`: a measure name must be a string, got NULL'
                    || CASE WHEN typeof(measures) LIKE '%[]' THEN ' (item ' || CAST(list_position([x IS NULL FOR x IN
                                pf__aslist(measures)], true) AS VARCHAR) || ' of the list)' ELSE '' END)
         ELSE pf__unique([struct_insert(y['m'], name := pf__name(y['m'], y['spec'], pf__level(rel_level)),
                                                    placeholder_zero := pf__placeholder_zero(y['m'], y['trec_params']))
                FOR y IN [{'m': pf__with_rel(z['m'], CASE z['spec']['rel_rule'] WHEN 'none' THEN NULL WHEN 'optional' THEN z['m']['rel']
                                                                       ELSE coalesce(z['m']['rel'], pf__level(rel_level)) END),
                           'spec': z['spec'], 'trec_params': z['trec_params']}
                          FOR z IN [{'m': pf__make(w['m'], w['spec'], w['t']), 'spec': w['spec'], 'trec_params': w['trec_params']}
                                    FOR w IN [{'m': v['m'], 't': v['t'], 'spec': pf__family(v['m']['family']), 'trec_params': v['trec_params']}
                                              FOR v IN pf__candidates(measures)]]]]) END;
