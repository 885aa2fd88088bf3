"""pairedframe inside DuckDB: the evaluation as SQL macros any DuckDB client can load.

``pf.duckdb.register(con)`` defines the macros on a DuckDB connection; ``pairedframe sql`` prints the
same script (``pairedframe sql > pairedframe.sql``, then ``.read pairedframe.sql`` in the DuckDB
shell). The script is generated from the package's own SQL: the measure files and preparation steps
in ``sql/`` (the ones the DuckDB engine runs), the DuckDB-only macros in ``sql/duckdb/`` (reading
TREC files, parsing measure names, building the evaluation, the paired t-test), and tables derived
from the measure registry (names, trec_eval forms, parameters and their ranges) and from scipy
(t quantiles). Every macro is ``TEMP``: it lives on the connection, never in a database file.

>>> import duckdb, pairedframe as pf
>>> con = duckdb.connect()
>>> pf.duckdb.register(con)                                                   # doctest: +SKIP
>>> con.sql("SELECT * FROM pf_evaluate('run.txt', 'qrels.txt', 'nDCG@10')")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pairedframe.errors import DUPLICATE_RULE, EMPTY_ID_RULE, PairedFrameError
from pairedframe.sql_files import load_sql
from pairedframe.measures import NICKNAMES, NOT_TREC_EVAL, REGISTRY, known_names
from pairedframe.measures.base import Interval
from pairedframe.measures.gains import DISCOUNTED

__all__ = ["MACRO_FILES", "MIN_DUCKDB", "check_duckdb", "register", "script"]

#: The oldest DuckDB the macros run on: every version from it on passes tests/test_duckdb_macros_*.py
#: (checked: 1.4.2, 1.4.4, 1.5.6, 2.0.1). 1.1 to 1.3.0 give other results than pf.evaluate (rows of infAP, GMAP
#: missing); 1.4.0 and 1.4.1 cannot define pf__candidates (a lambda reading a macro argument inside
#: another lambda: "Referenced column x not found"); 1.3.2 passes but lies below those two. The DuckDB
#: engine (pf.evaluate(engine="duckdb")) needs only the package's floor (pyproject.toml).
MIN_DUCKDB = (1, 4, 2)

#: The hand-written DuckDB SQL, in the order the script defines it (later files call earlier macros).
MACRO_FILES = ("duckdb/read.sql", "duckdb/measures.sql", "duckdb/evaluate.sql", "duckdb/compare.sql")

#: The measure struct's family parameters (sql/duckdb/measures.sql names each one).
PARAMETER_TYPES = {"p": "DOUBLE", "beta": "DOUBLE", "recall": "DOUBLE", "mult": "DOUBLE", "levels": "DOUBLE[]",
                   "weights": "DOUBLE[]", "collection_size": "BIGINT"}

#: How sql/duckdb/measures.sql reads the text after ``name.`` of each trec_eval "params" form.
PARAMS_FORMS = {"dcg": "gains", "ideal_dcg": "gains", "ndcg": "gains", "G": "gains", "ndcg_rel": "gains",
                "Rndcg": "gains", "rbp": "rbp", "rbp_resid": "rbp_resid", "relstring": "relstring", "utility": "utility", "11pt_avg": "levels",
                "set_F": "beta"}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pairedframe")
    except PackageNotFoundError:  # a source checkout that is not installed
        return "0+unknown"


def lit(value: Any) -> str:
    """A Python value as a DuckDB literal: strings quoted, floats as exact doubles, lists as lists."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"CAST('{value!r}' AS DOUBLE)"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"


def _case(subject: str, cases: list[tuple[str, str]], default: str = "NULL") -> str:
    if not cases:
        return default
    body = "\n".join(f"    WHEN {when} THEN {then}" for when, then in cases)
    return f"CASE\n{body}\n    ELSE {default} END"


# --- the measure registry as SQL ----------------------------------------------------------------

_FAMILY_TYPE = ("STRUCT(key VARCHAR, cutoff VARCHAR, rel_rule VARCHAR, uses_gain BOOLEAN, \"at\" VARCHAR, aggregate VARCHAR, "
                "value_kind VARCHAR, max_grade BIGINT, allowed VARCHAR[], params VARCHAR[], not_comparable VARCHAR, "
                "complete_reset VARCHAR, lo DOUBLE, hi DOUBLE)")
_FORM_TYPE = ("STRUCT(family VARCHAR, kind VARCHAR, name VARCHAR, defaults DOUBLE[], reader VARCHAR, bare_cutoff BIGINT, "
              "bare_p DOUBLE)")


def _family_entry(key: str) -> dict:
    spec = REGISTRY[key]
    allowed = (["cutoff"] if spec.cutoff != "none" and spec.at == "cutoff" else []) + (
        ["rel"] if spec.uses_rel else []) + (["dcg", "gains"] if spec.uses_gain else []) + ["judged_only"] + [
        p.name for p in spec.params]
    return {"key": key, "cutoff": spec.cutoff, "rel_rule": spec.rel_rule, "uses_gain": spec.uses_gain, "at": spec.at,
            "aggregate": spec.aggregate, "value_kind": spec.value_kind, "max_grade": spec.max_grade,
            "allowed": allowed, "params": [p.name for p in spec.params],
            "not_comparable": _not_comparable(spec), "complete_reset": spec.complete_reset,
            # the range of one query's value (Measure.value_range; null where unbounded: JSON has no inf)
            "lo": _finite_or_none(spec.value_range[0]), "hi": _finite_or_none(spec.value_range[1])}


def _finite_or_none(x: float) -> float | None:
    return float(x) if abs(x) != float("inf") else None


def _not_comparable(spec) -> str | None:
    """Why pf_compare refuses the family (pf.compare's rules: a paired test of mean deltas needs a measure
    that ranks runs and is summarised by its mean), or None."""
    if spec.run_independent:
        return "depends on the judgments only, not on the run (no hypothesis)"
    if not spec.ranks_runs:
        return ("describes what a run returned (how much, or how much of it is judged), not how well it ranks (no run "
                "is better for a larger value)")
    if spec.aggregate == "gmean":
        return ("is summarised by a geometric mean, which a mean delta of per-query values does not compare "
                "(it would be the arithmetic mean's)")
    return None


def _form_entry(key: str, form) -> dict:
    return {"family": key, "kind": form.kind, "name": form.name, "defaults": [float(v) for v in form.defaults],
            "reader": PARAMS_FORMS.get(form.name), "bare_cutoff": form.bare.get("cutoff"),
            "bare_p": form.bare.get("params", {}).get("p")}


def _domain_sql(x: str, domain: Interval) -> str:
    parts = [f"isfinite({x})"]
    if domain.low != float("-inf"):
        parts.append(f"{x} {'>' if domain.open_low else '>='} {lit(float(domain.low))}")
    if domain.high != float("inf"):
        parts.append(f"{x} {'<' if domain.open_high else '<='} {lit(float(domain.high))}")
    return " AND ".join(parts)


def _parameter_checks() -> str:
    """pf__param_problem(m): why a family parameter of the measure struct m is not allowed (NULL if
    all are), worded as Param.problem words it. List parameters are checked through their smallest
    and largest values (no lambda: DuckDB binds each lambda slowly)."""
    cases = []
    for key, spec in REGISTRY.items():
        for p in spec.params:
            x = f"m['{p.name}']"
            doc = f" ({p.doc})" if p.doc else ""
            each = "each value must be" if p.kind == "floats" else "must be"
            number = "an integer" if p.kind == "int" else "a finite number"
            tail = f" is out of range: {each} {number} in {p.domain}"
            if p.kind == "floats":
                shown = f"pf__tuple({x})"
                bad = f"NOT ({_domain_sql(f'list_min({x})', p.domain)} AND {_domain_sql(f'list_max({x})', p.domain)})"
                if p.length is not None:
                    cases.append((f"m['family'] = {lit(key)} AND {x} IS NOT NULL AND len({x}) <> {p.length}",
                                  f"'parameter {p.name}=' || {shown} || {lit(doc)} || ' has ' || CAST(len({x}) AS VARCHAR) "
                                  f"|| ' values; it takes exactly {p.length}'"))
            else:
                shown = f"CAST({x} AS VARCHAR)"
                bad = f"NOT ({_domain_sql(x, p.domain)})"
            cases.append((f"m['family'] = {lit(key)} AND {x} IS NOT NULL AND {bad}",
                          f"'parameter {p.name}=' || {shown} || {lit(doc + tail)}"))
    return "CREATE OR REPLACE TEMP MACRO pf__param_problem(m) AS " + _case("", cases) + ";"


def _parameter_defaults() -> str:
    """pf__param_defaults(m): m with each family parameter left unset or equal to its default set NULL."""
    fields = []
    for name, kind in PARAMETER_TYPES.items():
        cases = [(f"m['family'] = {lit(key)} AND m['{name}'] = {lit(spec.param(name).default)}", f"CAST(NULL AS {kind})")
                 for key, spec in REGISTRY.items() for p in spec.params if p.name == name and p.default is not None]
        fields.append(f"'{name}': " + _case("", cases, f"m['{name}']").replace("\n", " "))
    base = ", ".join(f"'{f}': m['{f}']" for f in ("family", "cutoff", "rel", "gain", "gains", "judged_only"))
    return f"CREATE OR REPLACE TEMP MACRO pf__param_defaults(m) AS {{{base}, {', '.join(fields)}}};"


def registry_sql() -> str:
    """Macros describing the measure families, their names and trec_eval forms (from the registry).

    The tables are one JSON text each (DuckDB binds a text literal at once; a CASE of struct literals
    copied into every lambda that uses it made binding take seconds)."""
    forms = {form.name: _form_entry(key, form) for key, spec in REGISTRY.items() for form in spec.trec}
    unknown = {name for name, form in forms.items() if form["kind"] == "params"} - set(PARAMS_FORMS)
    params = {p.name for spec in REGISTRY.values() for p in spec.params}
    if unknown or params - set(PARAMETER_TYPES):
        raise RuntimeError(f"sql/duckdb/measures.sql does not read trec_eval form(s) {sorted(unknown)} or parameter(s) "
                           f"{sorted(params - set(PARAMETER_TYPES))}: teach it, then list them here")
    tables = {
        "families": {key: _family_entry(key) for key in REGISTRY},
        "forms": forms,
        "form_names": sorted(forms, key=lambda name: (-len(name), name)),
        "names": {name.lower(): key for key, spec in REGISTRY.items() for name in (key, *spec.aliases)},
        "nicknames": {name: [n for n in members if not _text_valued(n)] for name, members in NICKNAMES.items()},
        "known": [n for n in known_names() if not _text_valued(n)],
        "not_trec": NOT_TREC_EVAL,
    }
    text = lit(json.dumps(tables, sort_keys=True))
    return "\n\n".join([
        "-- Generated from pairedframe.measures.REGISTRY by pairedframe.sql_macros (do not edit).",
        f"CREATE OR REPLACE TEMP MACRO pf__registry() AS {text};",
        "CREATE OR REPLACE TEMP MACRO pf__json_key(k) AS '\"' || replace(replace(nullif(k, ''), '\\', '\\\\'), '\"', '\\\"') || '\"';",
        "CREATE OR REPLACE TEMP MACRO pf__ir_family(word) AS "
        "json_extract_string(pf__registry(), '$.names.' || pf__json_key(lower(word)));",
        f"CREATE OR REPLACE TEMP MACRO pf__family(key) AS "
        f"CAST(json_extract(pf__registry(), '$.families.' || pf__json_key(key)) AS {_FAMILY_TYPE});",
        f"CREATE OR REPLACE TEMP MACRO pf__form(name) AS "
        f"CAST(json_extract(pf__registry(), '$.forms.' || pf__json_key(name)) AS {_FORM_TYPE});",
        "CREATE OR REPLACE TEMP MACRO pf__nickname(t) AS "
        "CAST(json_extract(pf__registry(), '$.nicknames.' || pf__json_key(t)) AS VARCHAR[]);",
        "CREATE OR REPLACE TEMP MACRO pf__known_names() AS CAST(json_extract(pf__registry(), '$.known') AS VARCHAR[]);",
        # trec_eval's name split (parse._split_trec): the whole text, the part before the first '.',
        # or the longest form name followed by '_'.
        """CREATE OR REPLACE TEMP MACRO pf__trec_split(t_in) AS
    [[CASE WHEN list_contains(names, t) THEN {'form': t, 'params': NULL::VARCHAR, 'sep': ''}
           WHEN strpos(t, '.') > 0 AND list_contains(names, split_part(t, '.', 1))
                THEN {'form': split_part(t, '.', 1), 'params': substr(t, strpos(t, '.') + 1), 'sep': '.'}
           ELSE [{'form': n, 'params': substr(t, length(n) + 2), 'sep': '_'}
                 FOR n IN names IF starts_with(t, n || '_') AND length(t) > length(n) + 1][1] END
      FOR names IN [CAST(json_extract(pf__registry(), '$.form_names') AS VARCHAR[])]][1]
     FOR t IN [t_in]][1];""",
        _lacking_sql(),
        _parameter_checks(),
        _parameter_defaults(),
        _bare_name_sql(),
    ])


def _bare_name_sql() -> str:
    """pf__bare_name(m): whether the measure struct m (parameters at their default NULL) is the one of
    its family's bare trec_eval name (``utility``, ``rbp_resid`` is RBPResid(p=0.9)), for the families
    whose ``complete_reset`` is ``"bare"`` (``Measure.trec_name`` equal to the family's, as
    ``evaluation.judgments.complete_resets`` asks); NULL for other families."""
    cases = []
    for key, spec in REGISTRY.items():
        if spec.complete_reset != "bare":
            continue
        bare = dict(spec.trec[0].bare)
        values = bare.pop("params", {})
        if set(bare) - {"cutoff"} or set(values) - {p.name for p in spec.params}:
            raise RuntimeError(f"{key}: pf__bare_name does not read the bare fields {sorted(bare)} / {sorted(values)}")
        parts = [f"m['cutoff'] = {lit(bare['cutoff'])}" if "cutoff" in bare else "m['cutoff'] IS NULL"]
        parts += ["m['gains'] IS NULL", "coalesce(m['gain'], 'linear') <> 'exp'"] if spec.uses_gain else []
        for p in spec.params:
            value = values.get(p.name, p.default)
            value = list(value) if p.kind == "floats" else value
            parts.append(f"m['{p.name}'] IS NULL" if value == (list(p.default) if p.kind == "floats" else p.default)
                         else f"m['{p.name}'] = CAST({lit(value)} AS {PARAMETER_TYPES[p.name]})" if p.kind == "floats"
                         else f"m['{p.name}'] = {lit(value)}")
        cases.append((f"m['family'] = {lit(key)}", " AND ".join(parts)))
    return "CREATE OR REPLACE TEMP MACRO pf__bare_name(m) AS " + _case("", cases).replace("\n", " ") + ";"


def _lacking_sql() -> str:
    """pf__lacking(t): the error message of a trec_eval-style name of a family trec_eval 10 lacks
    (``recip_rank_cut.10``, ``err_20``), worded as ``measures._trec.not_in_trec_eval`` words it; NULL for
    any other name. Its names are its own (lacking_t, lk): a macro's argument text is pasted in, so a
    caller's ``x['t']`` must not meet a binding called x."""
    pattern = "^(" + "|".join(map(re.escape, NOT_TREC_EVAL)) + ")([._].*)?$"
    return f"""CREATE OR REPLACE TEMP MACRO pf__lacking(lacking_t) AS
    [CASE WHEN lk['name'] <> '' AND (lk['rest'] <> '' OR lk['name'] = 'recip_rank_cut') THEN
         'measure ' || pf__lit(lacking_t) || ': trec_eval 10 has no measure ' || pf__lit(lk['name'])
         || CASE WHEN lk['family'] = 'RR' THEN ' (it has recip_rank, without a cutoff)' ELSE '' END
         || '; pairedframe''s is '
         || CASE WHEN regexp_full_match(substr(lk['rest'], 2), '[0-9]+(,[0-9]+)*')
                 THEN array_to_string([lk['family'] || '@' || lk_k FOR lk_k IN string_split(substr(lk['rest'], 2), ',')], ', ')
                 ELSE lk['family'] || '@k' END
         || ' (csv, json and table print it; trec format refuses it)' END
     FOR lk IN [{{'name': lk_name, 'rest': regexp_extract(lacking_t, {lit(pattern)}, 2),
                'family': json_extract_string(pf__registry(), '$.not_trec.' || pf__json_key(lk_name))}}
               FOR lk_name IN [regexp_extract(lacking_t, {lit(pattern)}, 1)]]][1];"""


def _text_valued(name: str) -> bool:
    from pairedframe.measures import parse_measure

    try:
        return any(m.spec.value_kind == "text" for m in parse_measure(name))
    except ValueError:
        return False


# --- sql/ files as text templates ---------------------------------------------------------------

_TOKEN = re.compile(r"\$([A-Za-z_]\w*)|\b(pf_queries|pf_ranked|pf_ideal)\b")
_CREATE = re.compile(r"^\s*CREATE\s+OR\s+REPLACE\s+TEMP\s+TABLE\s+(\w+)\s+AS\s+(.*?);?\s*$", re.S | re.I)


def _strip(text: str) -> str:
    """The SQL without comments and with runs of blanks squeezed (the builders paste it into one query)."""
    lines = (line.split("--", 1)[0].rstrip() for line in text.splitlines())
    return re.sub(r"\s+", " ", " ".join(line for line in lines if line.strip())).strip()


def template(text: str, params: dict[str, str], group: str | None = None) -> str:
    """A SQL expression building ``text`` with each ``$param`` replaced by the SQL text that
    ``params[param]`` (an expression) evaluates to and, when ``group`` is given, pf_queries /
    pf_ranked / pf_ideal renamed ``pf_queries_<group>`` ...: the measure's tables of its
    relevance level."""
    parts, pos = [], 0
    for match in _TOKEN.finditer(text):
        parts.append(lit(text[pos:match.start()]))
        if match.group(1):
            parts.append(f"({params[match.group(1)]})")
        else:
            parts.append(lit(match.group(2)) if group is None else f"{lit(match.group(2) + '_')} || {group}")
        pos = match.end()
    parts.append(lit(text[pos:]))
    return " || ".join(p for p in parts if p != "''")


def _step(name: str) -> tuple[str, str]:
    """(table name, SELECT) of a preparation step ``CREATE OR REPLACE TEMP TABLE x AS SELECT ...;``."""
    match = _CREATE.match(_strip(load_sql(name)))
    if match is None:
        raise RuntimeError(f"sql/{name} is not one CREATE OR REPLACE TEMP TABLE ... AS statement")
    return match.group(1), match.group(2)


def _measure_params(key: str) -> dict[str, str]:
    """SQL texts of a family's ``$parameters`` from the measure struct ``m`` (defaults filled in)."""
    spec = REGISTRY[key]
    values = {"k": "pf__sql_int(m['cutoff'])", "rel": "pf__sql_int(m['rel'])", "gain_map": "pf__lit(pf__gain_key(m))",
              "exact_gains": "CASE WHEN pf__exact_gains(m['gains']) THEN 'true' ELSE 'false' END"}
    for p in spec.params:
        value = f"coalesce(m['{p.name}'], {lit(p.default)})"
        values[p.name] = {"floats": f"pf__lit(pf__list_key(coalesce(m['{p.name}'], CAST({lit(p.default)} AS DOUBLE[]))))",
                          "int": f"pf__sql_int({value})", "float": f"pf__sql_double({value})"}[p.kind]
    return values


def templates_sql() -> str:
    """pf__measure_sql(m, g) (a measure's SELECT on its group's tables) and the preparation steps
    pf__prep_run_sql(...) / pf__prep_group_sql(...), built from the files in sql/."""
    measure = _case("", [(f"m['family'] = {lit(key)}", template(_strip(load_sql(spec.sql_file)), _measure_params(key),
                                                                 "CAST(g AS VARCHAR)"))
                         for key, spec in REGISTRY.items() if spec.value_kind == "number"])
    options = {"rel_level": "pf__sql_int(rel_level)", "judged_only": "pf__sql_bool(judged_only)",
               "complete": "pf__sql_bool(complete)", "depth": "pf__sql_int(depth)", "float32": "pf__sql_bool(float32)"}
    run_steps = " || ', ' || ".join(f"{lit(name + ' AS MATERIALIZED (')} || {template(body, options)} || ')'"
                                  for name, body in map(_step, ("prep_retrieved.sql", "prep_ranks.sql")))
    group_steps = " || ', ' || ".join(
        f"{lit(name + '_')} || CAST(g AS VARCHAR) || ' AS MATERIALIZED (' || {template(body, options, 'CAST(g AS VARCHAR)')} || ')'"
        for name, body in map(_step, ("prep_queries.sql", "prep_ranked.sql", "prep_ideal.sql")))
    lists = _case("", [(f"m['family'] = {lit(key)}", "[" + ", ".join(
        f"coalesce(m['{p.name}'], CAST({lit(p.default)} AS DOUBLE[]))" for p in spec.params if p.kind == "floats") + "]")
        for key, spec in REGISTRY.items() if any(p.kind == "floats" for p in spec.params)], "CAST([] AS DOUBLE[][])")
    persistence = _case("", [(f"m['family'] = {lit(key)}", f"coalesce(m['p'], {lit(REGISTRY[key].param('p').default)})")
                             for key in DISCOUNTED])
    return "\n\n".join([
        "-- Generated from the measure files and preparation steps in sql/ (do not edit).",
        f"CREATE OR REPLACE TEMP MACRO pf__lists(m) AS {lists};",
        f"CREATE OR REPLACE TEMP MACRO pf__discount_p(m) AS {persistence};",
        f"CREATE OR REPLACE TEMP MACRO pf__check_run_sql() AS {lit(_strip(load_sql('check_run.sql')))};",
        f"CREATE OR REPLACE TEMP MACRO pf__check_qrels_sql() AS {lit(_strip(load_sql('check_qrels.sql')))};",
        f"CREATE OR REPLACE TEMP MACRO pf__measure_sql(m, g) AS {measure};",
        f"CREATE OR REPLACE TEMP MACRO pf__prep_run_sql(float32) AS {run_steps};",
        f"CREATE OR REPLACE TEMP MACRO pf__prep_group_sql(g, rel_level, judged_only, complete, depth) AS {group_steps};",
    ])


# --- t quantiles for pf_compare's intervals ------------------------------------------------------

#: Two-sided confidence levels pf_compare has t quantiles for.
CONFIDENCE_LEVELS = (0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
#: Degrees of freedom tabulated (scipy's stdtrit); Hill's expansion beyond (relative error < 3e-14).
T_TABLE_DF = 1000


def t_quantiles_sql() -> str:
    """pf__t_quantiles(level): the t quantiles of a two-sided level for df = 1..T_TABLE_DF, and
    pf__hill_sql(level): SQL text of Hill's expansion (Abramowitz & Stegun 26.7.5) in t.df beyond."""
    from scipy.special import ndtri, stdtrit

    table, hill = {}, {}
    for level in CONFIDENCE_LEVELS:
        p = 0.5 + level / 2
        table[repr(level)] = [float(stdtrit(df, p)) for df in range(1, T_TABLE_DF + 1)]
        z = float(ndtri(p))
        g = [(z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96, (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
             (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160]
        hill[repr(level)] = f"({lit(z)} + " + " + ".join(f"{lit(c)} / pow(t.df, {i + 1})" for i, c in enumerate(g)) + ")"
    known = ", ".join(repr(level) for level in CONFIDENCE_LEVELS)
    return "\n\n".join([
        "-- t quantiles from scipy.special.stdtrit (generated by pairedframe.sql_macros; do not edit).",
        f"CREATE OR REPLACE TEMP MACRO pf__t_table() AS {lit(json.dumps(table))};",
        f"CREATE OR REPLACE TEMP MACRO pf__confidence_levels() AS {lit(known)};",
        "CREATE OR REPLACE TEMP MACRO pf__t_quantiles(level) AS "
        "CAST(json_extract(pf__t_table(), '$.\"' || CAST(CAST(level AS DOUBLE) AS VARCHAR) || '\"') AS DOUBLE[]);",
        "CREATE OR REPLACE TEMP MACRO pf__hill_sql(level) AS "
        + _case("", [(f"CAST(CAST(level AS DOUBLE) AS VARCHAR) = {lit(k)}", lit(v)) for k, v in hill.items()]) + ";",
    ])


# --- the script ----------------------------------------------------------------------------------

def rules_sql() -> str:
    """pf__duplicate_rule() and pf__empty_id_rule(): the wording of pairedframe.errors' rules, which the
    macros' messages quote as the Python readers do."""
    return "\n".join(["-- The rules' wording, from pairedframe.errors (generated; do not edit).",
                      f"CREATE OR REPLACE TEMP MACRO pf__duplicate_rule() AS {lit(DUPLICATE_RULE)};",
                      f"CREATE OR REPLACE TEMP MACRO pf__empty_id_rule() AS {lit(EMPTY_ID_RULE)};"])


@cache
def script() -> str:
    """The macro script (``pairedframe sql`` prints it): every macro, ``TEMP``, in dependency order."""
    dialect = load_sql("dialect_duckdb.sql")
    parts = [f"-- pairedframe {_version()}: DuckDB macros (pf_read_run, pf_read_qrels, pf_measures, pf_evaluate, "
             "pf_summary, pf_compare).",
             "-- Generated by `pairedframe sql` from the package's sql/ folder and measure registry; load with "
             "`.read pairedframe.sql`.",
             f"CREATE OR REPLACE TEMP MACRO pf_version() AS {lit(_version())};", rules_sql(),
             dialect, load_sql("duckdb/read.sql"), registry_sql(), load_sql("duckdb/measures.sql"), templates_sql(),
             t_quantiles_sql(), *(load_sql(name) for name in MACRO_FILES[2:])]
    return "\n\n".join(part.strip() for part in parts) + "\n"


def _duckdb_version() -> str:
    import duckdb

    return duckdb.__version__


def check_duckdb(version: str | None = None) -> None:
    """Refuse a DuckDB older than :data:`MIN_DUCKDB`, the oldest the macros run on.

    Parameters
    ----------
    version : str, optional
        A DuckDB version such as ``"1.4.4"``; default the installed ``duckdb`` package's.

    Raises
    ------
    PairedFrameError
        Naming the installed and the needed version and the ``pip install`` that fixes it.
    """
    installed = _duckdb_version() if version is None else version
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", installed)
    if match is None or tuple(map(int, match.groups())) < MIN_DUCKDB:
        need = ".".join(map(str, MIN_DUCKDB))
        raise PairedFrameError(
            f"pairedframe's DuckDB macros need duckdb >= {need}, but duckdb {installed} is installed (older "
            f"versions refuse the macros or give wrong values); upgrade it: pip install -U \"duckdb>={need}\" "
            f"(pf.evaluate(engine=\"duckdb\") runs on duckdb {installed} as it is)")


def register(con: Any) -> Any:
    """Define pairedframe's macros on a DuckDB connection (``TEMP``: on this connection only).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        Any connection (in-memory or a database file; nothing is written to the file).

    Returns
    -------
    duckdb.DuckDBPyConnection
        ``con``, so that ``con = pf.duckdb.register(duckdb.connect())`` reads well.

    Raises
    ------
    PairedFrameError
        If the installed duckdb is older than :data:`MIN_DUCKDB`.

    Notes
    -----
    Table macros defined: ``pf_read_run(path, system := NULL)``, ``pf_read_qrels(path)``,
    ``pf_evaluate(run, qrels, measures, complete := false, rel_level := 1, depth := NULL,
    score_precision := 'float64', system := NULL, tables := false)`` (``system, qid, measure,
    value``; a run with no query in the qrels has no rows, as in ``per_query``), ``pf_summary(...)``
    (the same arguments; ``system, measure, value, n_queries``; a run with no query in the qrels:
    value NULL, n_queries 0),
    ``pf_compare(...)``; scalar macro ``pf_measures(measures, rel_level := 1)``. See
    docs/guide/duckdb_sql.md. The macros need duckdb >= 1.4.2 (:data:`MIN_DUCKDB`); an older one is
    refused (:func:`check_duckdb`) before any macro is defined. Bad input stops a query with an error
    naming the file or table and the problem, except a name under ``tables := true`` that is no table or
    view: DuckDB binds it before any check can run, so that is DuckDB's own ``duckdb.CatalogException``
    naming the table.
    """
    check_duckdb()
    con.execute(script())
    return con
