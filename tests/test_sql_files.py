"""The SQL in sql/: portable outside one marked file, and usable on a DuckDB connection by hand as
the README shows (prepare, then one measure's SELECT with bound parameters)."""

from __future__ import annotations

import re

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import BLANK_ID_PATTERN
from pairedframe.sql_files import blank_id_sql, load_sql, sql_dir, strip_comments
from pairedframe.engines import EvalOptions
from pairedframe.engines.base import STEPS
from pairedframe.engines.duckdb_engine import prepare
from pairedframe.measures import REGISTRY

DIALECT = "dialect_duckdb.sql"
# DuckDB-only syntax and functions that must stay in the dialect file (Spark SQL has none of them).
NOT_PORTABLE = [r"\bQUALIFY\b", r"::", r"\barg_(max|min)\b", r"\blist\s*\(", r"\bstring_agg\b",
                r"\blist_(transform|filter|reduce|sum|value|aggregate|slice|concat|extract|sort)\b", r"\bSEMI\s+JOIN\b", r"\bANTI\s+JOIN\b", r"\bFILTER\s*\(\s*WHERE", r"\bEXCLUDE\b", r"\bCOLUMNS\s*\(",
                r"\blambda\b", r"->", r"\bPIVOT\b", r"\bMATERIALIZED\b", r"\bstruct_\w+"]


SQL_WORDS = {"OVER", "AS", "FROM", "IN", "JOIN", "EXISTS", "SELECT", "WHERE", "AND", "OR", "ON", "ALL", "UNION"}


def _ordered_aggregates(text: str) -> list[str]:
    """ORDER BY inside a call that is not a window (``OVER (...)``/``WINDOW w AS (...)``): an
    ordered aggregate such as ``sum(x ORDER BY k)``."""
    found = []
    for match in re.finditer(r"\bORDER\s+BY\b", text, flags=re.IGNORECASE):
        depth, i = 0, match.start()
        while i > 0:
            i -= 1
            if text[i] == ")":
                depth += 1
            elif text[i] == "(":
                if depth == 0:
                    break
                depth -= 1
        before = text[:i].rstrip().upper()
        word = re.search(r"(\w+)$", before)
        if i > 0 and word and word.group(1) not in SQL_WORDS:  # name(... ORDER BY ...): a call
            found.append(text[max(0, i - 30):match.end()].replace("\n", " "))
    return found


# The evaluation's SQL: the prep steps and every measure's file (the input checks of prepare() are
# DuckDB's own validation queries).
EVALUATION_SQL = sorted({*(f for steps in STEPS.values() for f in steps), *(spec.sql_file for spec in REGISTRY.values())})


@pytest.mark.parametrize("name", EVALUATION_SQL)
def test_sql_files_are_portable_outside_the_dialect_file(name):
    text = strip_comments(load_sql(name))
    bad = [pattern for pattern in NOT_PORTABLE if re.search(pattern, text, flags=re.IGNORECASE)]
    assert not bad, f"{name} uses DuckDB-only syntax {bad}; keep it in sql/{DIALECT}"
    assert not _ordered_aggregates(text), f"{name}: ordered aggregate {_ordered_aggregates(text)}; use pf_seqsum"
    decimals = re.findall(r"(?<![\w.])\d+\.\d*", re.sub(r"CAST\(\s*[\d.]+\s+AS\s+DOUBLE\s*\)", "", text))
    assert not decimals, (f"{name}: literals {decimals}: write CAST(0.5 AS DOUBLE) (0.5 is a DECIMAL in DuckDB and "
                          "Spark, and Spark divides decimals at a fixed scale)")


def test_every_family_has_its_sql_file():
    missing = sorted({spec.sql_file for spec in REGISTRY.values()} - {p.name for p in sql_dir().glob("*.sql")})
    assert not missing


def test_prepare_and_a_measure_file_by_hand_against_evaluate(tmp_path):
    run = pl.DataFrame({"qid": ["1", "1", "1", "2"], "docno": ["a", "b", "c", "x"], "score": [3.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "c", "x"], "rel": [1, 3, 2]})
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    con = duckdb.connect()
    con.sql(f"CREATE VIEW pf_run AS SELECT 'mysys' AS system, qid, docno, score FROM '{tmp_path / 'run.parquet'}'")
    con.sql(f"CREATE VIEW pf_qrels AS SELECT qid, docno, rel FROM '{tmp_path / 'qrels.parquet'}'")
    prepare(con, rel_level=1, options=EvalOptions(complete=False, depth=None))
    for gain_map, name in [("", "nDCG@10"), ("exp", "nDCG(dcg='exp-log2')@10")]:
        got = con.sql(load_sql("ndcg.sql"), params={"k": 10, "gain_map": gain_map}).pl().sort("qid")
        want = pf.evaluate(run.with_columns(pl.lit("mysys").alias("system")), qrels, [name]).per_query.sort("qid")
        assert got["value"].to_list() == want["value"].to_list()


def test_the_spark_translator_folds_ordered_sums_and_refuses_other_ordered_aggregates_by_name():
    """sum(x ORDER BY k) becomes a sorted fold (Spark adds in DuckDB's order); an ordered aggregate it
    cannot translate is a ValueError naming the aggregate (a project-style refusal, never an unfinished stub)."""
    pytest.importorskip("sqlglot")
    from pairedframe.engines.spark_sql import to_spark

    _, select = to_spark("SELECT qid, sum(x ORDER BY k) AS s FROM t GROUP BY qid")
    assert "ARRAY_SORT" in select and "ORDER BY" not in select
    with pytest.raises(ValueError, match=r"no Spark translation for the ordered aggregate 'MAX\(x ORDER BY k\)'"):
        to_spark("SELECT qid, max(x ORDER BY k) AS s FROM t GROUP BY qid")


@pytest.mark.parametrize("name", ["check_run.sql", "check_qrels.sql"])
def test_the_input_checks_test_blank_ids_with_the_sql_of_blank_id_sql(name):
    text = strip_comments(load_sql(name))
    tests = re.findall(r"regexp_\w+\(CAST\((\w+) AS VARCHAR\), '[^']*'\)", text)
    assert tests, f"{name} tests no id against a pattern"
    for column in tests:     # the files are plain SQL: they hold the pattern itself, which must stay the rule's
        assert blank_id_sql(f"CAST({column} AS VARCHAR)", "duckdb") in text, (name, column, BLANK_ID_PATTERN)


def test_blank_id_sql_in_duckdb_matches_the_ids_blank_id_pattern_matches():
    ids = ["", " ", "\t", "\n \r", "\x0b\x0c", "a", " a ", "\u00a0", "a\n"]
    con = duckdb.connect()  # its own connection: a result left on the default one blocks later tests (DuckDB 2)
    query = f"SELECT {blank_id_sql('CAST(? AS VARCHAR)', 'duckdb')}"
    found = [con.execute(query, [i]).fetchall()[0][0] for i in ids]
    con.close()
    assert found == [re.search(BLANK_ID_PATTERN, i) is not None for i in ids]
