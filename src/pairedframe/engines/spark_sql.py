"""The metric SQL of ``sql/`` (written for DuckDB) as Spark SQL: one text, a documented translation.

:func:`to_spark` parses a file with sqlglot's DuckDB dialect and writes Spark SQL, with these rules
of its own on top of sqlglot's:

1. ``CREATE OR REPLACE TEMP TABLE name AS SELECT ...`` becomes the ``SELECT`` and the name: the
   engine registers the result as a (materialised) temporary view, because Spark refuses parameter
   markers in DDL. Parameters ``$k`` become Spark's named markers ``:k`` (bound with
   ``spark.sql(args=...)``).
2. The macros of ``sql/dialect_duckdb.sql`` (the only DuckDB-specific constructs of ``sql/``; Spark
   SQL has no aggregate macros) are expanded in place. ``pf_seqsum(x, k)`` -- the sum of ``x`` added
   one value at a time in ascending ``k`` order -- becomes a fold over the group's values sorted by
   ``k``::

       CASE WHEN count(x) = 0 THEN NULL ELSE
       aggregate(array_sort(filter(collect_list(named_struct('k0', k, 'v', CAST(x AS DOUBLE))),
                                   e -> e.v IS NOT NULL)), CAST(0 AS DOUBLE), (acc, e) -> acc + e.v) END

   so Spark adds the same numbers in the same order as DuckDB (NULL, as ``sum``, when no value).
   ``pf_concat(s, k)`` -- the strings concatenated in ascending ``k`` order -- becomes
   ``concat_ws('', transform(array_sort(...), e -> e.v))`` over the same sorted structs (NULL when
   no string, as ``string_agg``). An ordered aggregate written inline, ``sum(x ORDER BY k)``
   (``DESC`` sorts by ``-k``), is folded the same way; other ordered aggregates raise
   :class:`ValueError` naming the aggregate (our own SQL never writes one).
3. Decimal literals (``1.0``, ``1e-12``) are cast to DOUBLE: Spark reads them as DECIMAL, whose
   division rounds to a fixed scale; DuckDB divides them as doubles.
4. A window call inside arithmetic is parenthesised: Spark parses ``sum(x) OVER w - y`` as a window
   named ``w-y``.
5. Every table named ``pf_*`` is renamed ``<prefix>pf_*`` so that two evaluations on one Spark
   session do not overwrite each other's views.

``tests/test_spark_engine.py`` runs every file of ``sql/`` through it on Spark and compares with DuckDB.
"""

from __future__ import annotations

from functools import lru_cache

try:
    import sqlglot
    from sqlglot import exp
except ModuleNotFoundError as exc:      # the spark extra; say how to get it
    raise ModuleNotFoundError("engine='spark' translates the SQL with sqlglot: pip install 'pairedframe[spark]'",
                              name=exc.name) from exc

__all__ = ["to_spark"]

_SORTED = "array_sort(filter(collect_list(named_struct({keys}, 'v', {value})), e -> e.v IS NOT NULL))"
_FOLDS = {
    "sum": f"CASE WHEN count({{value}}) = 0 THEN NULL ELSE aggregate({_SORTED}, CAST(0 AS DOUBLE), "
           f"(acc, e) -> acc + e.v) END",
    "concat": f"CASE WHEN count({{value}}) = 0 THEN NULL ELSE concat_ws('', transform({_SORTED}, e -> e.v)) END",
}
#: The macros of sql/dialect_duckdb.sql: name -> (fold, value cast).
_MACROS = {"pf_seqsum": ("sum", "DOUBLE"), "pf_concat": ("concat", "STRING")}


def _fold(kind: str, value: exp.Expression, cast: str, keys: list[tuple[exp.Expression, bool]]) -> exp.Expression:
    """The ordered fold of ``value`` over the group, sorted by ``keys`` (expression, descending)."""
    parts = [f"'k{i}', {'-(' + key.sql('spark') + ')' if desc else key.sql('spark')}" for i, (key, desc) in enumerate(keys)]
    text = _FOLDS[kind].format(value=f"CAST({value.sql('spark')} AS {cast})", keys=", ".join(parts))
    return sqlglot.parse_one(text, read="spark")


def _ordered_fold(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() in _MACROS:
        kind, cast = _MACROS[node.name.lower()]
        if len(node.expressions) != 2:
            raise ValueError(f"{node.name} takes 2 arguments (value, order key), got {node.sql('duckdb')!r}")
        value, key = node.expressions
        return _fold(kind, value, cast, [(key, False)])
    agg = node.this if isinstance(node, exp.AggFunc) else None
    if not isinstance(agg, exp.Order):
        return node
    if not isinstance(node, exp.Sum):
        raise ValueError(f"no Spark translation for the ordered aggregate {node.sql('duckdb')!r}; "
                         "only sum(x ORDER BY k) and the macros of sql/dialect_duckdb.sql are translated")
    return _fold("sum", agg.this, "DOUBLE", [(o.this, bool(o.args.get("desc"))) for o in agg.expressions])


def _parenthesised_windows(node: exp.Expression) -> exp.Expression:
    # Spark's parser reads ``sum(x) OVER w - y`` as a window named ``w-y``
    if isinstance(node, exp.Window) and isinstance(node.parent, exp.Binary):
        return exp.Paren(this=node.copy())
    return node


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
    tree = tree.transform(_ordered_fold).transform(_double_literals).transform(_parenthesised_windows)
    if prefix:
        def rename(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Table) and node.name.startswith("pf_"):
                node.set("this", exp.to_identifier(prefix + node.name))
            return node
        tree = tree.transform(rename)
        created = prefix + created if created else None
    return created, tree.sql("spark")
