"""The tiny inputs every door is tried with, and how each is handed to a door (its *form*).

A *content* is what the user means (a run and qrels, or a per-query table) as polars frames; a
*form* is how it reaches the door: a polars / pandas / pyarrow table, a DuckDB relation, a nested
dict, or a file (TREC text, CSV, TSV, Parquet), possibly gzip- or zstd-compressed, with a BOM or
CRLF line ends. Bad-input classes (``cases.py``) change the content or the bytes of a file.
"""

from __future__ import annotations

import gzip
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import polars as pl
import pyarrow as pa

# ---- contents -----------------------------------------------------------------------------------

_RUN_ROWS = [  # system, qid, docno, score: distinct scores but one tie (q2 of b), which trec_eval breaks by docno
    ("a", "1", "d1", 4.0), ("a", "1", "d2", 3.0), ("a", "1", "d3", 2.0), ("a", "1", "d4", 1.0),
    ("a", "2", "d2", 2.5), ("a", "2", "d4", 1.5), ("a", "2", "d1", 0.5),
    ("a", "3", "d3", 9.0), ("a", "3", "d1", 8.0), ("a", "3", "d7", 7.0),
    ("b", "1", "d3", 4.0), ("b", "1", "d1", 3.0), ("b", "1", "d4", 2.0),
    ("b", "2", "d1", 1.0), ("b", "2", "d2", 1.0), ("b", "2", "d4", 0.5),
    ("b", "3", "d9", 3.0), ("b", "3", "d3", 2.0), ("b", "3", "d1", 1.0),
]
_QRELS_ROWS = [  # qid, docno, rel: graded, a judged non-relevant, a relevant document nobody retrieved
    ("1", "d1", 2), ("1", "d2", 0), ("1", "d3", 1),
    ("2", "d2", 1), ("2", "d4", 0),
    ("3", "d1", 0), ("3", "d3", 1), ("3", "d9", 1), ("3", "d8", 2),
]
RUN = pl.DataFrame(_RUN_ROWS, schema={"system": pl.String, "qid": pl.String, "docno": pl.String,
                                      "score": pl.Float64}, orient="row")
QRELS = pl.DataFrame(_QRELS_ROWS, schema={"qid": pl.String, "docno": pl.String, "rel": pl.Int64}, orient="row")
#: Measures evaluated by the evaluation doors: set, rank, graded and cutoff families.
MEASURES = ("AP", "nDCG@10", "P@2", "RR", "R@3")


def _per_query_rows() -> list[tuple[str, str, str, float]]:
    """3 systems x 8 queries x 2 measures; b is better than a on most queries, c about equal."""
    base = [0.20, 0.35, 0.10, 0.55, 0.40, 0.25, 0.60, 0.30]
    shift = {"a": [0.0] * 8, "b": [0.10, 0.05, 0.20, 0.02, 0.15, -0.05, 0.08, 0.12],
             "c": [0.01, -0.02, 0.03, -0.01, 0.0, 0.02, -0.03, 0.01]}
    rows = []
    for system, delta in shift.items():
        for i, (v, d) in enumerate(zip(base, delta)):
            rows.append((system, f"q{i + 1}", "AP", round(v + d, 4)))
            rows.append((system, f"q{i + 1}", "nDCG@10", round(min(1.0, v + 0.2 + d / 2), 4)))
    return rows


PER_QUERY = pl.DataFrame(_per_query_rows(), schema={"system": pl.String, "qid": pl.String, "measure": pl.String,
                                                    "value": pl.Float64}, orient="row")
#: qid -> cluster (topic family) and qid -> segment of the per-query queries.
CLUSTERS = {f"q{i + 1}": f"c{i // 2 + 1}" for i in range(8)}
SEGMENTS = pl.DataFrame({"qid": [f"q{i + 1}" for i in range(8)], "segment_set": ["length"] * 8,
                         "segment": ["short"] * 4 + ["long"] * 4})


@dataclass(frozen=True)
class EvalContent:
    """A run and qrels as the user means them (default: the clean ones)."""

    run: pl.DataFrame = field(default_factory=lambda: RUN)
    qrels: pl.DataFrame = field(default_factory=lambda: QRELS)

    def with_run(self, run: pl.DataFrame) -> "EvalContent":
        return replace(self, run=run)

    def with_qrels(self, qrels: pl.DataFrame) -> "EvalContent":
        return replace(self, qrels=qrels)


@dataclass(frozen=True)
class TableContent:
    """A per-query table (``system, qid, measure, value`` and maybe key columns)."""

    table: pl.DataFrame = field(default_factory=lambda: PER_QUERY)


# ---- files --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FileStyle:
    """How a file's bytes are finished: BOM, CRLF, compression (applied in that order)."""

    bom: bool = False
    crlf: bool = False
    bare_cr: bool = False  # lines end in a lone CR (old Mac OS): refused by the TREC readers
    compression: str | None = None  # "gzip" | "zstd"
    label: str = "plain"
    trec_eval_run: bool = False  # each run file holds trec_eval's output of the run, given in its place

    def finish(self, text: bytes) -> bytes:
        if self.crlf:
            text = text.replace(b"\n", b"\r\n")
        if self.bare_cr:
            text = text.replace(b"\n", b"\r")
        if self.bom:
            text = b"\xef\xbb\xbf" + text
        if self.compression == "gzip":
            return gzip.compress(text)
        if self.compression == "zstd":
            return pa.compress(text, codec="zstd", asbytes=True)
        return text


PLAIN = FileStyle()
FILE_STYLES = (FileStyle(bom=True, label="bom"), FileStyle(crlf=True, label="crlf"),
               FileStyle(compression="gzip", label="gzip"), FileStyle(compression="zstd", label="zstd"),
               FileStyle(bom=True, crlf=True, compression="gzip", label="bom+crlf+gzip"))


def _cell(value: Any) -> str:
    """A value as a text file writes it (None: an empty field; floats as Python spells them)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return str(value)


def trec_run_text(run: pl.DataFrame) -> bytes:
    """``qid Q0 docno rank score tag`` lines of one system's rows (rank = file position)."""
    lines = [f"{_cell(q)} Q0 {_cell(d)} {i + 1} {_cell(s)} {_cell(t)}"
             for i, (t, q, d, s) in enumerate(run.select("system", "qid", "docno", "score").iter_rows())]
    return ("\n".join(lines) + "\n").encode() if lines else b""


def trec_eval_output_text(run: pl.DataFrame) -> bytes:
    """What ``trec_eval -q -m num_ret`` prints for one system's rows: ``measure TAB qid TAB value`` lines, the
    measure padded to 22 characters, then the summary (``all``) lines."""
    counts = run.group_by("qid", maintain_order=True).len().iter_rows()
    lines = [f"{'num_ret':<22}\t{q}\t{n}" for q, n in counts] + [f"{'num_ret':<22}\tall\t{run.height}"]
    return ("\n".join(lines) + "\n").encode()


def trec_qrels_text(qrels: pl.DataFrame) -> bytes:
    lines = [f"{_cell(q)} 0 {_cell(d)} {_cell(r)}" for q, d, r in qrels.select("qid", "docno", "rel").iter_rows()]
    return ("\n".join(lines) + "\n").encode() if lines else b""


def delimited_text(frame: pl.DataFrame, separator: str) -> bytes:
    """A header row and one line per row, every value spelled by :func:`_cell` (ids stay as written)."""
    lines = [separator.join(frame.columns)]
    lines += [separator.join(_cell(v) for v in row) for row in frame.iter_rows()]
    return ("\n".join(lines) + "\n").encode()


def write(path: Path, data: bytes, style: FileStyle = PLAIN) -> str:
    path.write_bytes(style.finish(data))
    return str(path)


# ---- forms: how a content reaches a door ---------------------------------------------------------

TABLE_FORMS = ("polars", "pandas", "arrow", "duckdb")
FILE_FORMS = ("trec", "csv", "tsv", "parquet")


def as_form(frame: pl.DataFrame, form: str) -> Any:
    """``frame`` as a polars / pandas / pyarrow table, a DuckDB relation or a Spark DataFrame (of the
    active session: the ``spark`` fixture's)."""
    if form == "polars":
        return frame
    if form == "pandas":
        return frame.to_pandas()
    if form == "arrow":
        return frame.to_arrow()
    if form == "duckdb":
        import duckdb

        arrow = frame.to_arrow()  # noqa: F841  (read by DuckDB's replacement scan)
        return duckdb.sql("SELECT * FROM arrow")
    if form == "spark":
        from pyspark.sql import SparkSession

        return SparkSession.getActiveSession().createDataFrame(frame.to_arrow())
    raise ValueError(form)


@dataclass
class RunFiles:
    """A content written as files: one run path per system (or one table file) and a qrels path."""

    runs: list[str]
    qrels: str
    names: list[str] = field(default_factory=list)


def write_eval_files(content: EvalContent, form: str, tmp: Path, style: FileStyle = PLAIN) -> RunFiles:
    """The content as TREC text (one ``input.<system>`` file per system), or as one CSV / TSV /
    Parquet table with a ``system`` column, and qrels of the same format."""
    if form == "trec":
        systems = content.run["system"].unique(maintain_order=True).to_list() or ["a"]
        text = trec_eval_output_text if style.trec_eval_run else trec_run_text
        runs = [write(tmp / f"input.{s}", text(content.run.filter(pl.col("system") == s)), style) for s in systems]
        return RunFiles(runs, write(tmp / "qrels.txt", trec_qrels_text(content.qrels), style), systems)
    if form in ("csv", "tsv"):
        sep = "," if form == "csv" else "\t"
        return RunFiles([write(tmp / f"run.{form}", delimited_text(content.run, sep), style)],
                        write(tmp / f"qrels.{form}", delimited_text(content.qrels, sep), style))
    if form == "parquet":
        content.run.write_parquet(tmp / "run.parquet")
        content.qrels.write_parquet(tmp / "qrels.parquet")
        return RunFiles([str(tmp / "run.parquet")], str(tmp / "qrels.parquet"))
    raise ValueError(form)


def write_table_file(frame: pl.DataFrame, form: str, tmp: Path, style: FileStyle = PLAIN,
                     name: str = "results") -> str:
    """A per-query table as a CSV / TSV / Parquet / JSON / NDJSON file."""
    if form in ("csv", "tsv"):
        return write(tmp / (f"{name}.{form}" + (".gz" if style.compression == "gzip" else "")),
                     delimited_text(frame, "," if form == "csv" else "\t"), style)
    path = tmp / f"{name}.{form}"
    if form == "parquet":
        frame.write_parquet(path)
    elif form == "json":
        frame.write_json(path)
    elif form == "ndjson":
        frame.write_ndjson(path)
    else:
        raise ValueError(form)
    return str(path)


# ---- id dtypes ----------------------------------------------------------------------------------

def retype(frame: pl.DataFrame, columns: tuple[str, ...], kind: str) -> Any:
    """``frame`` with its id ``columns`` stored as another type: ``categorical``, ``enum``,
    ``dictionary`` / ``large_string`` (pyarrow), ``integer`` / ``float`` (numbers), ``boolean`` / ``datetime`` (no id), ``null`` (no value),
    ``mixed`` (a pandas object column of two types), ``mixed_float`` / ``mixed_bool`` (a float / True among strings)."""
    if kind == "categorical":
        return frame.with_columns(pl.col(c).cast(pl.Categorical) for c in columns)
    if kind == "enum":
        return frame.with_columns(pl.col(c).cast(pl.Enum(frame[c].unique(maintain_order=True).to_list()))
                                  for c in columns)
    if kind in ("dictionary", "large_string"):
        table = frame.to_arrow()
        for c in columns:
            i = table.schema.get_field_index(c)
            col = table.column(c).cast(pa.large_string())
            table = table.set_column(i, c, col.dictionary_encode() if kind == "dictionary" else col)
        return table
    if kind == "integer":
        return frame.with_columns(pl.col(c).str.extract(r"(\d+)").cast(pl.Int64) for c in columns)
    if kind == "float":
        return frame.with_columns(pl.col(c).str.extract(r"(\d+)").cast(pl.Float64) for c in columns)
    if kind == "boolean":   # a flag where an id belongs: odd digits True
        return frame.with_columns((pl.col(c).str.extract(r"(\d+)").cast(pl.Int64) % 2 == 1) for c in columns)
    if kind == "datetime":  # a timestamp where an id belongs: 2020-01-01 plus the id's digits in days
        return frame.with_columns((pl.datetime(2020, 1, 1) + pl.duration(days=pl.col(c).str.extract(r"(\d+)")
                                                                         .cast(pl.Int64))).alias(c) for c in columns)
    if kind == "null":
        return frame.with_columns(pl.lit(None).alias(c) for c in columns)
    if kind in ("mixed", "mixed_float", "mixed_bool"):  # a pandas object column: ids as digit strings but row 1
        import pandas as pd              # an int (a float: JSON's 2.0 beside "3"; True), numbers with row 1 a str

        table = frame.to_pandas()
        number = {"mixed_float": float, "mixed_bool": lambda _: True}.get(kind, int)
        for c in columns:
            values = frame[c].str.extract(r"(\d+)").to_list() if frame.schema[c] == pl.String else frame[c].to_list()
            values[1] = number(values[1]) if isinstance(values[1], str) else str(values[1])
            table[c] = pd.Series(values, dtype=object)
        return table
    raise ValueError(kind)


Transform = Callable[[pl.DataFrame], pl.DataFrame]


# ---- delivery: a content in a form, as a door's arguments ---------------------------------------------

def _nested(frame: pl.DataFrame, value: str) -> dict:
    out: dict = {}
    for qid, docno, v in frame.select("qid", "docno", value).iter_rows():
        out.setdefault(qid, {})[docno] = v
    return out


def _typed(frame: pl.DataFrame, retype_spec: tuple[tuple[str, ...], str] | None, form: str) -> Any:
    if retype_spec is None:
        return frame if form == "parquet" else as_form(frame, form)
    columns, kind = retype_spec
    typed = retype(frame, tuple(c for c in columns if c in frame.columns), kind)
    if isinstance(typed, pl.DataFrame) and form != "parquet":
        return as_form(typed, form)
    return typed


def deliver_eval(content: EvalContent, form: str, tmp: Path, style: FileStyle = PLAIN,
                 retype_spec: tuple[tuple[str, ...], str] | None = None) -> tuple[Any, Any]:
    """(run, qrels) arguments: tables of ``form``, nested dicts, or paths of files of ``form``."""
    if form == "dict":
        runs = {s: _nested(content.run.filter(pl.col("system").eq_missing(s)), "score")  # a None key too
                for s in content.run["system"].unique(maintain_order=True).to_list()}
        return runs, _nested(content.qrels, "rel")
    if form == "table_list":  # the run as one polars table per system, in a list ([read_run(a), read_run(b)])
        systems = content.run["system"].unique(maintain_order=True).to_list()
        run = _typed(content.run, retype_spec, "polars")
        return [run.filter(pl.col("system") == s) for s in systems] or [run], _typed(content.qrels, retype_spec, "polars")
    if form in FILE_FORMS and form != "parquet":
        files = write_eval_files(content, form, tmp, style)
        return (files.runs if form == "trec" else files.runs[0]), files.qrels
    run, qrels = _typed(content.run, retype_spec, form), _typed(content.qrels, retype_spec, form)
    if form == "parquet":
        (pl.from_arrow(run) if not isinstance(run, pl.DataFrame) else run).write_parquet(tmp / "run.parquet")
        (pl.from_arrow(qrels) if not isinstance(qrels, pl.DataFrame) else qrels).write_parquet(tmp / "qrels.parquet")
        return str(tmp / "run.parquet"), str(tmp / "qrels.parquet")
    return run, qrels


def deliver_table(content: TableContent, form: str, tmp: Path, style: FileStyle = PLAIN,
                  retype_spec: tuple[tuple[str, ...], str] | None = None) -> Any:
    """A per-query table as a table of ``form`` or the path of a file of ``form``."""
    if form in ("json", "ndjson") and retype_spec is not None and retype_spec[1] in ("mixed", "mixed_float",
                                                                                      "mixed_bool"):
        # a number among the strings of an id column, as JSON holds it ({"qid": 7} beside {"qid": "8"})
        path = tmp / f"results.{form}"
        retype(content.table, *retype_spec).to_json(path, orient="records", lines=form == "ndjson")
        return str(path)
    if form in ("csv", "tsv", "json", "ndjson"):
        return write_table_file(content.table, form, tmp, style)
    typed = _typed(content.table, retype_spec, form)
    if form == "parquet":
        (pl.from_arrow(typed) if not isinstance(typed, pl.DataFrame) else typed).write_parquet(tmp / "results.parquet")
        return str(tmp / "results.parquet")
    return typed
