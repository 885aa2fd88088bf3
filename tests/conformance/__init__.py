"""Door conformance (issue 20): every public entry point that takes user data, tried with every class
of bad input, must give the documented value or a clear error -- never a silent empty, a library's
traceback, or a value changed by an unrelated row.

Layout
------
- ``inputs.py``: the tiny clean inputs (a run and qrels, a per-query table) and how each reaches a
  door (*forms*: polars / pandas / pyarrow / DuckDB / dict, TREC text, CSV, TSV, Parquet, JSON; files
  finished with a BOM, CRLF, gzip or zstd).
- ``cases.py``: the bad-input classes (``EVAL_CASES`` for runs and qrels, ``TABLE_CASES`` for
  per-query tables) and what each must give: ``Value()`` (the value of what the input means: for the
  evaluation doors trec_eval's logic in ``tests/reference``, else the same door on the plain polars
  input) or ``Raises(pattern)`` (an error of pairedframe's naming the argument, file, line or column).
- ``doors.py`` (runs and qrels, per-query tables) and ``other_doors.py`` (everything else): the
  registry. ``test_registry.py`` walks ``pairedframe.__all__`` (functions and public classmethods),
  the CLI's commands and ``pairedframe.engines.ENGINES``, and fails for any door not registered.
- ``test_*_doors.py`` run the cells; ``test_parameters.py`` the absurd options of every door;
  ``test_names.py`` names with ``| & % _ # $ { } < > \\ ~ ^`` in every renderer (its ``RENDERERS``);
  ``test_empty.py`` each door's empty-result case.

Registering a door
------------------
A function that reads runs and qrels (e.g. ``pf.duckdb.register``) -- one entry in ``EVAL_DOORS``::

    "duckdb.register": Door("evaluation", lambda run, qrels, **kw: pf.duckdb.register(con, run, qrels, **kw),
                            value=lambda result: ..., forms=("polars", "duckdb", "trec"),
                            public="pf.duckdb.register", reference=oracle_per_query,
                            params={"option": ((bad, values), r"option")},
                            empty=(lambda tmp: ..., EmptyResultError, "why it is empty")),

A function that reads per-query tables (e.g. ``pf.report``) -- one entry in ``TABLE_DOORS`` with
``kind="table"`` and ``call(table, **kw)``; its renderings go in ``test_names.RENDERERS``. A function
with inputs of its own kind (e.g. a prefs reader) -- an ``OtherDoor`` in ``other_doors.py`` listing its
cells (``clean``, ``empty``, ``nan``, ``bom``, ...). A door that cannot take some case says so in
``skip`` (with the reason); a known fault another branch fixes is ``xfail`` (strict, keyed ``case``,
``case@form`` or ``*@form``, the reason naming the issue item). ``cases``/``content_forms`` keep slow
doors (the CLI, DuckDB) to a representative subset. Spark doors set ``spark=True``: their cells are
marked ``spark`` and skipped without pyspark and Java.
"""
