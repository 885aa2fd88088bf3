"""The DuckDB doors say what the Python doors say about the same bad input: a duplicate in the words of
``errors.DUPLICATE_RULE``, a duplicate cutoff as ``parse_measure`` says it, an empty id in the words of
``errors.EMPTY_ID_RULE`` naming the table, the column and the row, and a missing file by its name.

The doors: the macros (``pf.duckdb.register``, the script ``pairedframe sql`` prints), ``prepare()``
(user-made ``pf_run`` / ``pf_qrels``) and ``pf.evaluate`` on tables."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.engines import EvalOptions
from pairedframe.engines.duckdb_engine import prepare
from pairedframe.errors import DUPLICATE_RULE, EMPTY_ID_RULE
from pairedframe.measures import parse_measure, parse_measures

RUN = "1 Q0 d1 1 3.0 s\n1 Q0 d2 2 2.0 s\n2 Q0 d1 1 1.0 s\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n"
#: DuckDB 2.0 on reads a missing file as no lines (read_csv's allow_empty): the macros name it themselves.
READS_MISSING_FILES = int(duckdb.__version__.split(".")[0]) >= 2


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return pf.duckdb.register(duckdb.connect())


def _write(tmp: Path, name: str, text: str) -> str:
    (tmp / name).write_text(text)
    return str(tmp / name)


def _macro_error(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> str:
    """The message of the error() a macro raised (DuckDB's prefix and query excerpt dropped)."""
    with pytest.raises(duckdb.InvalidInputException) as info:
        con.execute(sql, params).fetchall()
    return str(info.value).splitlines()[0].removeprefix("Invalid Input Error: ")


# ---- duplicates: errors.DUPLICATE_RULE ------------------------------------------------------------------

@pytest.mark.parametrize("sql, run, qrels, reader", [
    ("SELECT * FROM pf_read_run(?)", RUN + "1 Q0 d1 3 0.5 s\n", None, pf.read_run),
    ("SELECT * FROM pf_read_qrels(?)", None, QRELS + "1 0 d1 0\n", pf.read_qrels),
    ("SELECT * FROM pf_evaluate(?, ?, 'AP')", RUN + "1 Q0 d1 3 0.5 s\n", QRELS, pf.read_run),
    ("SELECT * FROM pf_evaluate(?, ?, 'AP')", RUN, QRELS + "1 0 d1 0\n", pf.read_qrels),
])
def test_a_duplicate_in_a_file_through_the_macros_against_read_run_and_read_qrels(con, tmp_path, sql, run, qrels,
                                                                                    reader):
    """The macros said "trec_eval refuses duplicates, remove them" where the readers give the rule of
    errors.DUPLICATE_RULE: the message is now the reader's, up to the offending line it quotes."""
    paths = [_write(tmp_path, name, text) for name, text in (("run.txt", run), ("qrels.txt", qrels)) if text is not None]
    got = _macro_error(con, sql, paths)
    with pytest.raises(pf.DuplicateError) as want:
        reader(paths[0] if reader is pf.read_run or len(paths) == 1 else paths[1])
    assert DUPLICATE_RULE in got
    assert str(want.value).startswith(got + ": "), (got, str(want.value))


@pytest.mark.parametrize("run_rows, qrels_rows, what", [
    ("('s', '1', 'd1', 2.0), ('s', '1', 'd1', 1.0)", "('1', 'd1', 1)", "run"),
    ("('s', '1', 'd1', 2.0)", "('1', 'd1', 1), ('1', 'd1', 0)", "qrels"),
])
def test_a_duplicate_in_a_table_through_the_macros_quotes_the_duplicate_rule(run_rows, qrels_rows, what):
    con = pf.duckdb.register(duckdb.connect())
    con.execute(f"CREATE TABLE r AS SELECT * FROM (VALUES {run_rows}) t(system, qid, docno, score)")
    con.execute(f"CREATE TABLE q AS SELECT * FROM (VALUES {qrels_rows}) t(qid, docno, rel)")
    got = _macro_error(con, "SELECT * FROM pf_evaluate('r', 'q', 'AP', tables := true)")
    assert got.startswith(f"{what} table: duplicate ") and got.endswith(f"(2 rows); {DUPLICATE_RULE}"), got


# ---- duplicate cutoffs: parse_measure's words -------------------------------------------------------------

@pytest.mark.parametrize("text", ["P.10,10", "ndcg_cut.10,10", "P.5,10,5", "recall.10,010", "map_cut.1000000,1000000",
                                  "iprec_at_recall.0.5,.5", "success.1,1,5,5", "P.0,0", "ndcg_cut.-1,-1"])
def test_a_duplicate_cutoff_through_the_macros_against_parse_measure(con, text):
    """A cutoff given twice was "unknown measure 'P.10,10' (duplicate cutoffs)": the name is right, and
    parse_measure says "measure 'P.10,10': duplicate cutoff 10" (after a cutoff out of range, as it checks)."""
    with pytest.raises(pf.UnknownMeasureError) as want:
        parse_measure(text)
    assert _macro_error(con, "SELECT pf_measures(?)", [text]) == str(want.value)


@pytest.mark.parametrize("names", [["rbp", "rbp.p=0.8,1=3"], ["rbp.p=0.8,1=3", "rbp"], ["P", "P.5"], ["P.5", "P.10"],
                                   ["ndcg", "AP", "ndcg.1=3"], ["official", "P.7"], ["rbp", "rbp.p=0.5", "RBP(p=0.5)"],
                                   ["P_5", "P.10", "P"], ["ndcg_cut", "nDCG@7", "ndcg_cut.5"]])
def test_a_family_named_in_trec_eval_syntax_twice_through_the_macros_against_parse_measures(con, names):
    """trec_eval evaluates a family named bare and with parameters once, with the first parameter list:
    parse_measures kept RBP(gains={1:3.0}) alone for rbp and rbp.p=0.8,1=3, where pf_measures kept both."""
    got = con.execute("SELECT [m.name FOR m IN pf_measures(?)]", [names]).fetchone()[0]
    with warnings.catch_warnings():         # parse_measures warns about what trec_eval drops
        warnings.simplefilter("ignore")
        want = [m.name for m in parse_measures(names)]
    assert got == want


@pytest.mark.parametrize("names", [["P@10", "P@10"], ["P.10", "P@10", "P_10"], ["ndcg_cut.10", "nDCG@10"]])
def test_a_measure_named_twice_through_the_macros_is_evaluated_once_against_parse_measures(con, names):
    got = con.execute("SELECT [m.name FOR m IN pf_measures(?)]", [names]).fetchone()[0]
    assert got == [m.name for m in parse_measures(names)] and len(got) == 1


# ---- empty ids: errors.EMPTY_ID_RULE, naming table, column and row -------------------------------------------

#: (side, column, the row's other values as every door shows them)
EMPTY_IDS = [("run", "system", "qid='1', docno='d2', score=1.0"), ("run", "qid", "system='s', docno='d2', score=1.0"),
             ("run", "docno", "system='s', qid='1', score=1.0"), ("qrels", "qid", "docno='d2', rel=0"),
             ("qrels", "docno", "qid='1', rel=0")]


def _frames(side: str, column: str, blank: str = "") -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run and qrels whose second row (side) has `column` empty (or made of the blanks `blank`)."""
    run = pl.DataFrame({"system": ["s", "s"], "qid": ["1", "1"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "rel": [1, 0]})
    empty = pl.when(pl.int_range(pl.len()) == 1).then(pl.lit(blank)).otherwise(pl.col(column)).alias(column)
    return (run.with_columns(empty), qrels) if side == "run" else (run, qrels.with_columns(empty))


def _message(side: str, column: str, shown: str, table: str, row: str) -> str:
    return (f"^{re.escape(table)}: column '{column}' is an empty or all-blank string in 1 row\\(s\\), e\\.g\\. {row} "
            f"\\({re.escape(shown)}\\); {re.escape(EMPTY_ID_RULE)}$")


@pytest.mark.parametrize("blank", ["", " ", "  ", "\t", " \x0c\r"])
@pytest.mark.parametrize("side, column, shown", EMPTY_IDS)
def test_an_empty_or_blank_id_is_refused_alike_by_evaluate_prepare_and_the_macros(side, column, shown, blank):
    """pf.evaluate took an empty system from a table, prepare() every empty id, the macros every empty id
    of a table, and all of them an id of blanks only ('  ', a tab: trec_eval's separators): one rule now,
    in the words of the file readers' checks (table, column, row; a DuckDB relation has no row order, so
    its row is named by its values)."""
    run, qrels = _frames(side, column, blank)
    with pytest.raises(pf.SchemaError, match=_message(side, column, shown, f"{side} table", "row 2")):
        pf.evaluate(run, qrels, "AP")
    con = duckdb.connect()
    con.register("pf_run", run)
    con.register("pf_qrels", qrels)
    with pytest.raises(pf.SchemaError, match=_message(side, column, shown, f"pf_{side}", "the row")):
        prepare(con, rel_level=1, options=EvalOptions(complete=False, depth=None))
    con = pf.duckdb.register(duckdb.connect())
    con.register("my_run", run)
    con.register("my_qrels", qrels)
    got = _macro_error(con, "SELECT * FROM pf_evaluate('my_run', 'my_qrels', 'AP', tables := true)")
    assert re.search(_message(side, column, shown, f"{side} table my_{side}", "the row"), got), got


def test_an_empty_id_in_the_second_run_table_names_that_table(con):
    con.execute("CREATE OR REPLACE TABLE a_run AS SELECT 'a' AS system, '1' AS qid, 'd1' AS docno, 1.0 AS score")
    con.execute("CREATE OR REPLACE TABLE b_run AS SELECT 'b' AS system, '1' AS qid, '' AS docno, 1.0 AS score")
    con.execute("CREATE OR REPLACE TABLE a_qrels AS SELECT '1' AS qid, 'd1' AS docno, 1 AS rel")
    got = _macro_error(con, "SELECT * FROM pf_evaluate(['a_run', 'b_run'], 'a_qrels', 'AP', tables := true)")
    assert got.startswith("run table b_run: column 'docno' is an empty or all-blank string in 1 row(s), e.g. the row "
                          "(system='b', qid='1'"), got


@pytest.mark.parametrize("inner", [" a", "a ", "a\tb"])
def test_an_id_with_blanks_beside_other_characters_is_not_refused_as_blank(inner):
    """Only an id of blanks only is refused (its other blanks are another matter): the check must not
    catch an id that merely holds a blank."""
    run, qrels = _frames("run", "docno", inner)
    assert pf.evaluate(run, qrels, "AP").per_query["value"].to_list() == [1.0]
    con = duckdb.connect()
    con.register("pf_run", run)
    con.register("pf_qrels", qrels)
    prepare(con, rel_level=1, options=EvalOptions(complete=False, depth=None))


@pytest.mark.parametrize("name", ["", "  ", "\t"])
def test_a_system_name_given_empty_or_blank_to_the_macros_is_refused(con, tmp_path, name):
    run = _write(tmp_path, "run.txt", "1 Q0 d1 1 1.0 s\n")
    qrels = _write(tmp_path, "qrels.txt", "1 0 d1 1\n")
    got = _macro_error(con, "SELECT * FROM pf_evaluate(?, ?, 'AP', system := ?)", [run, qrels, name])
    assert got == "pf_evaluate: a system name is empty or made of blanks only", got


# ---- a missing file: named by the macros (DuckDB 2.0 on) ---------------------------------------------------------

TABLES_HINT = "; to read a table or view of that name, pass tables := true"


@pytest.mark.parametrize("sql, files, missing, said", [
    ("SELECT * FROM pf_read_run(?)", [None], 0, "run file {}: no such file"),
    ("SELECT * FROM pf_read_run(?)", [[RUN, None]], 1, "run file {}: no such file"),
    ("SELECT * FROM pf_read_qrels(?)", [None], 0, "qrels file {}: no such file"),
    ("SELECT * FROM pf_evaluate(?, ?, 'AP')", [None, QRELS], 0, "run file {}: no such file" + TABLES_HINT),
    ("SELECT * FROM pf_evaluate(?, ?, 'AP')", [RUN, None], 1, "qrels file {}: no such file" + TABLES_HINT),
    ("SELECT * FROM pf_summary(?, ?, 'AP')", [[RUN, None], QRELS], 1, "run file {}: no such file" + TABLES_HINT),
    # named before a duplicate of another file: the file to give comes first
    ("SELECT * FROM pf_compare(?, ?, 'AP', baseline := 'f0')", [[RUN + "1 Q0 d1 3 0.5 s\n", None], QRELS], 1,
     "run file {}: no such file" + TABLES_HINT),
    ("SELECT * FROM pf_read_run(?)", [[RUN + "1 Q0 d1 3 0.5 s\n", None]], 1, "run file {}: no such file"),
])
def test_a_missing_file_through_the_macros_is_named_as_the_file_of_its_argument(con, tmp_path, sql, files, missing, said):
    """A missing file gave DuckDB's "IO Error: No files found that match the pattern" (a pattern, which the
    macros refuse, and no argument named); DuckDB 2.0's allow_empty lets the macros name it. Before 2.0
    DuckDB raises when it binds the read, before any check of the macros runs (documented)."""
    names = iter(f"f{i}" for i in range(10))

    def path(text: str | None) -> str:
        name = next(names)
        return str(tmp_path / name) if text is None else _write(tmp_path, name, text)

    params = [[path(t) for t in f] if isinstance(f, list) else path(f) for f in files]
    flat = [p for f in params for p in (f if isinstance(f, list) else [f])]
    gone = next(p for p in flat if not Path(p).exists())
    assert flat.index(gone) == missing
    if not READS_MISSING_FILES:
        with pytest.raises(duckdb.IOException, match=re.escape(gone)):
            con.execute(sql, params).fetchall()
        return
    assert _macro_error(con, sql, params) == said.format(gone)


def test_an_empty_file_through_the_macros_is_still_an_empty_file_not_a_missing_one(con, tmp_path):
    for sql, params in [("SELECT * FROM pf_read_run(?)", [_write(tmp_path, "empty", "# nothing\n")]),
                        ("SELECT * FROM pf_evaluate(?, ?, 'AP')", [_write(tmp_path, "r", RUN), _write(tmp_path, "q", "\n")])]:
        got = _macro_error(con, sql, params)
        assert got == f"{'run' if len(params) == 1 else 'qrels'} file {params[-1]}: empty file: no data lines " \
                      "(blank and # lines are skipped)", got
