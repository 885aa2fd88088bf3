"""The metric SQL of ``sql/`` (written for DuckDB) as Spark SQL: one text, a documented translation.

:func:`to_spark` parses a file with sqlglot's DuckDB dialect and writes Spark SQL, with four rules
of its own on top of sqlglot's:

1. ``CREATE OR REPLACE TEMP TABLE name AS SELECT ...`` becomes the ``SELECT`` and the name: the
   engine registers the result as a (materialised) temporary view, because Spark refuses parameter markers
   in DDL. Parameters ``$k`` become Spark's named markers ``:k`` (bound with ``spark.sql(args=...)``).
2. An ordered aggregate ``sum(x ORDER BY k)`` -- the sums whose order makes DuckDB's results
   independent of row order -- becomes a fold over the group's values sorted by ``k``::

       aggregate(array_sort(filter(collect_list(named_struct('k0', k, 'v', CAST(x AS DOUBLE))),
                                   e -> e.v IS NOT NULL)), CAST(0 AS DOUBLE), (acc, e) -> acc + e.v)

   so Spark adds the same numbers in the same order as DuckDB (NULL, as ``sum``, when no value).
   ``ORDER BY k DESC`` sorts by ``-k``. Other ordered aggregates raise :class:`NotImplementedError`.
3. Decimal literals (``1.0``, ``1e-12``) are cast to DOUBLE: Spark reads them as DECIMAL, whose
   division rounds to a fixed scale; DuckDB divides them as doubles.
4. Every table named ``pf_*`` is renamed ``<prefix>pf_*`` so that two evaluations on one Spark
   session do not overwrite each other's views.

``tests/test_spark_sql.py`` runs every file of ``sql/`` through it on Spark and compares with DuckDB.
"""

from __future__ import annotations

from functools import lru_cache

import sqlglot
from sqlglot import exp

__all__ = ["to_spark"]

_FOLD = ("CASE WHEN count({value}) = 0 THEN NULL ELSE aggregate(array_sort(filter(collect_list(named_struct("
         "{keys}, 'v', CAST({value} AS DOUBLE))), e -> e.v IS NOT NULL)), CAST(0 AS DOUBLE), (acc, e) -> acc + e.v) END")


def _ordered_fold(node: exp.Expression) -> exp.Expression:
    agg = node.this
    if not isinstance(agg, exp.Order):
        return node
    if not isinstance(node, exp.Sum):
        raise NotImplementedError(f"no Spark translation for the ordered aggregate {node.sql('duckdb')!r}; "
                                  "only sum(x ORDER BY k) is translated")
    keys = []
    for i, ordered in enumerate(agg.expressions):
        key = ordered.this.sql("spark")
        keys.append(f"'k{i}', {'-(' + key + ')' if ordered.args.get('desc') else key}")
    text = _FOLD.format(value=agg.this.sql("spark"), keys=", ".join(keys))
    return sqlglot.parse_one(text, read="spark")


def _double_literals(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Literal) and not node.is_string and any(c in node.this for c in ".eE"):
        if not isinstance(node.parent, exp.Cast):
            return exp.Cast(this=node.copy(), to=exp.DataType.build("DOUBLE"))
    return node


@lru_cache(maxsize=512)
def to_spark(text: str, prefix: str = "") -> tuple[str | None, str]:
    """``(created, select)``: the name of the table the statement creates (None for a plain SELECT),
    already prefixed, and the Spark SQL of its SELECT with ``:name`` parameter markers."""
    tree = sqlglot.parse_one(text, read="duckdb")
    created = None
    if isinstance(tree, exp.Create):
        created = tree.this.name
        tree = tree.expression
    tree = tree.transform(_ordered_fold).transform(_double_literals)
    if prefix:
        def rename(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Table) and node.name.startswith("pf_"):
                node.set("this", exp.to_identifier(prefix + node.name))
            return node
        tree = tree.transform(rename)
        created = prefix + created if created else None
    return created, tree.sql("spark")
