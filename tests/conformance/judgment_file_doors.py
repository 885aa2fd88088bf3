"""Doors that read trec_eval's other judgment files (preferences, z-scores) and the DuckDB macros:
each lists its cells, as in ``other_doors.py`` (which collects them into ``OTHER_DOORS``)."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import polars as pl

import pairedframe as pf
from pairedframe.errors import DuplicateError, InputFormatError, PairedFrameError
from tests.conformance.expect import Raises
from tests.conformance.other_doors import Cell, OtherDoor  # noqa: E402 (other_doors imports this module last)

PREFS = ("q1 g1 s1 d1 2\nq1 g1 s1 d2 1\nq1 g1 s1 d3 0\n"
         "q2 g1 s1 d1 1\nq2 g1 s1 d4 0\n")
ZSCORES = "q1 map 0.2 0.1\nq1 P_5 0.4 0.2\nq2 map 0.3 0.0\n"


def _file(t: Path, name: str, text: str | bytes) -> str:
    path = t / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns)


def _prefs(t: Path, text: str | bytes, name: str = "prefs.txt", **kw: Any) -> pl.DataFrame:
    return pf.read_prefs(_file(t, name, text), **kw)


READ_PREFS = OtherDoor("pf.read_prefs", value=_sorted, cells={
    "clean": Cell(lambda t: _prefs(t, PREFS), reference=lambda t: pl.DataFrame(
        [(q, "g1", "s1", d, float(v)) for q, d, v in
         (("q1", "d1", 2), ("q1", "d2", 1), ("q1", "d3", 0), ("q2", "d1", 1), ("q2", "d4", 0))],
        schema=["qid", "jg", "jsg", "docno", "level"], orient="row").sort(["qid", "jg", "jsg", "docno", "level"]),
        oracle=True),
    "ids_keep_leading_zeros": Cell(lambda t: _prefs(t, "007 g s 0042 1\n007 g s 0043 0\n").select("qid", "docno"),
                                   reference=lambda t: pl.DataFrame({"qid": ["007", "007"], "docno": ["0042", "0043"]}),
                                   oracle=True),
    "crlf": Cell(lambda t: _prefs(t, PREFS.replace("\n", "\r\n")), reference=lambda t: _prefs(t, PREFS)),
    "bom": Cell(lambda t: _prefs(t, b"\xef\xbb\xbf" + PREFS.encode()), reference=lambda t: _prefs(t, PREFS)),
    "gzip": Cell(lambda t: _prefs(t, gzip.compress(PREFS.encode()), name="prefs.txt.gz"),
                 reference=lambda t: _prefs(t, PREFS)),
    "comments_and_blank_lines": Cell(lambda t: _prefs(t, "# judged by A\n\n" + PREFS),
                                     reference=lambda t: _prefs(t, PREFS)),
    "empty": Cell(lambda t: _prefs(t, "# none\n"), Raises(r"empty file", InputFormatError)),
    "four_fields": Cell(lambda t: _prefs(t, PREFS + "q3 g1 d9 1\n"), Raises(r"prefs\.txt.*line 6|line 6.*prefs\.txt",
                                                                          InputFormatError)),
    "level_not_a_number": Cell(lambda t: _prefs(t, PREFS + "q3 g1 s1 d9 high\n"), Raises(r"line 6", InputFormatError)),
    "level_nan": Cell(lambda t: _prefs(t, PREFS + "q3 g1 s1 d9 nan\n"), Raises(r"line 6", InputFormatError)),
    "level_inf": Cell(lambda t: _prefs(t, PREFS + "q3 g1 s1 d9 inf\n"), Raises(r"line 6", InputFormatError)),
    "duplicate_key": Cell(lambda t: _prefs(t, PREFS + "q1 g1 s1 d1 2\n"), Raises(r"d1", DuplicateError)),
    "unknown_format": Cell(lambda t: _prefs(t, PREFS, format="prefs_jg"), Raises(r"format")),
}, empty=(lambda t: pf.read_prefs(_file(t, "p.txt", "# none\n")), InputFormatError, "empty file"))


def _zscores(t: Path, text: str | bytes, name: str = "z.txt") -> pl.DataFrame:
    return pf.read_zscores(_file(t, name, text))


READ_ZSCORES = OtherDoor("pf.read_zscores", value=_sorted, cells={
    "clean": Cell(lambda t: _zscores(t, ZSCORES), reference=lambda t: pl.DataFrame(
        [("q1", "map", 0.2, 0.1), ("q1", "P_5", 0.4, 0.2), ("q2", "map", 0.3, 0.0)],
        schema=["qid", "measure", "mean", "stddev"], orient="row").sort(["qid", "measure", "mean", "stddev"]),
        oracle=True),
    "crlf": Cell(lambda t: _zscores(t, ZSCORES.replace("\n", "\r\n")), reference=lambda t: _zscores(t, ZSCORES)),
    "bom": Cell(lambda t: _zscores(t, b"\xef\xbb\xbf" + ZSCORES.encode()), reference=lambda t: _zscores(t, ZSCORES)),
    "gzip": Cell(lambda t: _zscores(t, gzip.compress(ZSCORES.encode()), name="z.txt.gz"),
                 reference=lambda t: _zscores(t, ZSCORES)),
    "empty": Cell(lambda t: _zscores(t, "\n\n"), Raises(r"empty file", InputFormatError)),
    "three_fields": Cell(lambda t: _zscores(t, ZSCORES + "q3 map 0.1\n"), Raises(r"z\.txt.*line 4|line 4.*z\.txt",
                                                                                 InputFormatError)),
    "nan_mean": Cell(lambda t: _zscores(t, ZSCORES + "q3 map nan 0.1\n"), Raises(r"line 4.*mean|mean.*line 4",
                                                                                 InputFormatError)),
    "inf_stddev": Cell(lambda t: _zscores(t, ZSCORES + "q3 map 0.1 inf\n"), Raises(r"stddev", InputFormatError)),
    "duplicate_key": Cell(lambda t: _zscores(t, ZSCORES + "q1 map 0.5 0.1\n"), Raises(r"map", DuplicateError)),
}, empty=(lambda t: pf.read_zscores(_file(t, "z.txt", "\n\n")), InputFormatError, "empty file"))


# ---- the DuckDB macros (pf.duckdb.register): the SQL doors --------------------------------------------

RUN = "1 Q0 d1 1 3.0 s\n1 Q0 d2 2 2.0 s\n2 Q0 d1 1 1.5 s\n2 Q0 d3 2 0.5 s\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d1 0\n"


class MacroError(PairedFrameError):
    """An error the macros raised on purpose: SQL's ``error()`` surfaces as DuckDB's
    InvalidInputException; any other DuckDB error (binder, conversion, catalog) is DuckDB's own
    failure and is left as it is, so the cell fails as "a library's error reached the user"."""


def _macros(t: Path, run: str = RUN, qrels: str = QRELS, measure: str = "AP") -> pl.DataFrame:
    import duckdb

    con = duckdb.connect()
    pf.duckdb.register(con)
    try:
        rows = con.execute("SELECT system, qid, measure, value FROM pf_evaluate(?, ?, ?)",
                           [_file(t, "run.txt", run), _file(t, "qrels.txt", qrels), measure]).fetchall()
    except duckdb.InvalidInputException as error:
        raise MacroError(str(error)) from None
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row").sort(
        ["system", "qid", "measure"])


def _macro_compare(t: Path, other: str) -> list:
    """pf_compare of run.txt against the baseline other.txt (an error() of the macros as MacroError)."""
    import duckdb

    con = pf.duckdb.register(duckdb.connect())
    runs = [_file(t, "run.txt", RUN), _file(t, "other.txt", other)]
    try:
        return con.execute("SELECT system, measure, n FROM pf_compare(?, ?, 'AP', baseline := 'other.txt')",
                           [runs, _file(t, "qrels.txt", QRELS)]).fetchall()
    except duckdb.InvalidInputException as error:
        raise MacroError(str(error)) from None


def _macros_on(t: Path, run: str | None, qrels: str | None) -> pl.DataFrame:
    """pf_evaluate of run.txt and qrels.txt, either None: a path where no file is."""
    import duckdb

    con = pf.duckdb.register(duckdb.connect())
    paths = [str(t / name) if text is None else _file(t, name, text) for name, text in (("run.txt", run), ("qrels.txt", qrels))]
    try:
        return pl.DataFrame(con.execute("SELECT qid, measure, value FROM pf_evaluate(?, ?, 'AP')", paths).fetchall())
    except duckdb.InvalidInputException as error:
        raise MacroError(str(error)) from None


def _macro_tables(run_rows: str, qrels_rows: str = "('1', 'd1', 1)", names: tuple[str, str] = ("my_run", "my_qrels")
                  ) -> list:
    """pf_evaluate of tables my_run (system, qid, docno, score) and my_qrels (qid, docno, rel) of these rows,
    called with ``names`` as its run and qrels (a file path there: the tables := true door given a file)."""
    import duckdb

    con = pf.duckdb.register(duckdb.connect())
    con.execute(f"CREATE TABLE my_run AS SELECT * FROM (VALUES {run_rows}) t(system, qid, docno, score)")
    con.execute(f"CREATE TABLE my_qrels AS SELECT * FROM (VALUES {qrels_rows}) t(qid, docno, rel)")
    try:
        return con.execute("SELECT * FROM pf_evaluate(?, ?, 'AP', tables := true)", list(names)).fetchall()
    except duckdb.InvalidInputException as error:
        raise MacroError(str(error)) from None


def _reads_missing_files() -> bool:
    """DuckDB 2.0 on reads a missing file as no lines (read_csv's allow_empty): the macros name it themselves."""
    import duckdb

    return int(duckdb.__version__.split(".")[0]) >= 2


_BEFORE_DUCKDB_2 = "before DuckDB 2.0 a missing file stops the query with DuckDB's own IO Error when it is bound"


def _evaluate(t: Path, run: str = RUN, qrels: str = QRELS, measure: str = "AP") -> pl.DataFrame:
    per_query = pf.evaluate({"run.txt": _file(t, "run.txt", run)}, _file(t, "qrels.txt", qrels), measure).per_query
    return per_query.select("system", "qid", "measure", "value").with_columns(pl.lit("run.txt").alias("system")).sort(
        ["system", "qid", "measure"])


def _values(frame: pl.DataFrame) -> list:
    return frame.select("qid", "measure", "value").rows()


DUCKDB_REGISTER = OtherDoor("pf.duckdb.register", value=_values, cells={
    "clean": Cell(lambda t: _macros(t), reference=lambda t: _evaluate(t)),
    "ir_measures_and_trec_eval_names": Cell(lambda t: _macros(t, measure="ndcg_cut.10").with_columns(
        pl.lit("nDCG@10").alias("measure")), reference=lambda t: _evaluate(t, measure="nDCG@10")),
    "crlf": Cell(lambda t: _macros(t, RUN.replace("\n", "\r\n")), reference=lambda t: _evaluate(t)),
    "unrelated_query_in_the_qrels": Cell(lambda t: _macros(t, qrels=QRELS + "9 0 d1 1\n"),
                                         reference=lambda t: _evaluate(t)),
    "malformed_line": Cell(lambda t: _macros(t, RUN + "3 Q0 d1 1\n"), Raises(r"run\.txt.*line 5|line 5.*run\.txt")),
    "non_numeric_score": Cell(lambda t: _macros(t, RUN + "3 Q0 d1 1 high s\n"), Raises(r"score")),
    "duplicate_run_pair": Cell(lambda t: _macros(t, RUN + "1 Q0 d1 3 0.1 s\n"), Raises(r"duplicate")),
    "duplicate_qrels_pair": Cell(lambda t: _macros(t, qrels=QRELS + "1 0 d1 0\n"), Raises(r"duplicate")),
    "fractional_grade": Cell(lambda t: _macros(t, qrels=QRELS + "3 0 d1 1.5\n"), Raises(r"grade|integer")),
    "unknown_measure": Cell(lambda t: _macros(t, measure="nDGC@10"), Raises(r"nDGC@10")),
    "empty_run": Cell(lambda t: _macros(t, run="\n"), Raises(r"empty")),
    "compare_one_common_query": Cell(lambda t: _macro_compare(t, "1 Q0 d2 1 1.0 o\n"),
                                     Raises(r"system=run\.txt, baseline=other\.txt.*only one common query", MacroError)),
    "compare_baseline_without_judged_query": Cell(lambda t: _macro_compare(t, "9 Q0 d1 1 1.0 o\n"),
                                                  Raises(r"the baseline 'other\.txt' \(run file \S+other\.txt\) has no judged "
                                                         r"query in common with the qrels", MacroError)),
    "duplicate_cutoff": Cell(lambda t: _macros(t, measure="P.10,10"), Raises(r"Error: measure 'P\.10,10': duplicate cutoff 10\n",
                                                                             MacroError)),
    "missing_run_file": Cell(lambda t: _macros_on(t, None, QRELS), Raises(r"run file \S+run\.txt: no such file", MacroError)),
    "missing_qrels_file": Cell(lambda t: _macros_on(t, RUN, None), Raises(r"qrels file \S+qrels\.txt: no such file",
                                                                         MacroError)),
    "empty_system_in_a_table": Cell(lambda t: _macro_tables("('s', '1', 'd1', 2.0), ('', '1', 'd2', 1.0)"),
                                    Raises(r"run table my_run: column 'system' is an empty or all-blank string in 1 row\(s\), e\.g\. "
                                           r"the row \(qid='1', docno='d2', score=1\.0\)", MacroError)),
    "empty_qrels_docno_in_a_table": Cell(lambda t: _macro_tables("('s', '1', 'd1', 2.0)", "('1', 'd1', 1), ('1', '', 0)"),
                                         Raises(r"qrels table my_qrels: column 'docno' is an empty or all-blank string", MacroError)),
    "blank_qid_in_a_table": Cell(lambda t: _macro_tables("('s', '1', 'd1', 2.0), ('s', '  ', 'd2', 1.0)"),
                                 Raises(r"run table my_run: column 'qid' is an empty or all-blank string in 1 row\(s\), "
                                        r"e\.g\. the row \(system='s', docno='d2', score=1\.0\)", MacroError)),
    "qrels_file_path_beside_tables": Cell(lambda t: _macro_tables("('s', '1', 'd1', 2.0)", names=("my_run", _file(t, "qrels.txt", QRELS))),
                                          Raises(r"pf_evaluate: qrels '\S+qrels\.txt' looks like a file, but with tables := true run "
                                                 r"and qrels both name tables or views", MacroError)),
    "run_file_path_beside_tables": Cell(lambda t: _macro_tables("('s', '1', 'd1', 2.0)", names=("runs/bm25.run", "my_qrels")),
                                        Raises(r"pf_evaluate: run 'runs/bm25\.run' looks like a file, .*pass files for both "
                                               r"with tables := false", MacroError)),
    "tab_qrels_docno_in_a_table": Cell(lambda t: _macro_tables("('s', '1', 'd1', 2.0)", "('1', 'd1', 1), ('1', chr(9), 0)"),
                                       Raises(r"qrels table my_qrels: column 'docno' is an empty or all-blank string",
                                              MacroError)),
}, empty=(lambda t: _macros(t, qrels="9 0 d1 1\n"), MacroError, r"no run query is in the qrels"),
    xfail={} if _reads_missing_files() else {"missing_run_file": _BEFORE_DUCKDB_2, "missing_qrels_file": _BEFORE_DUCKDB_2})
