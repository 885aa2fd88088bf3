"""A paper's results table: systems x measures, significance marks, best bold, second underlined.

:func:`results_table` gathers the numbers (:mod:`pairedframe.comparison.table_data`) and returns a
:class:`ResultsTable` that renders

- LaTeX for pdflatex in a plain ``article`` with ``\\usepackage{booktabs}``
  (:mod:`pairedframe.report.table_latex`): every special character of a name escaped, booktabs
  rules, marks in a column of their own, intervals beside or below their numbers;
- HTML through great_tables (``pip install "pairedframe[report]"``), with a fresh element id per
  table and CSS scoped to it (:mod:`pairedframe.report.table_html`); the marks are written into the
  cells as ``<strong>``, ``<u>``, ``<sup>``;
- markdown as a GFM pipe table whose names survive any CommonMark renderer
  (:mod:`pairedframe.report.table_markdown`);
- the terminal through rich.
"""

from __future__ import annotations

import html
import io
import math
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from pairedframe.checks import require_bool
from pairedframe.errors import OLD_LEVEL_AND_SEED, ValueRangeWarning, renamed_attribute, renamed_keywords
from pairedframe.io.results import read_if_paths
from pairedframe.comparison.judgment_set_rows import one_set_of_table
from pairedframe.comparison.table_data import TableData, baseline_names, reject_text_measures, results_table_data
from pairedframe.measures.parse import aggregate_of
from pairedframe.report.output import require_output_folder, visible_controls
from pairedframe.report.table_caption import caption_text
from pairedframe.report.table_html import check_table_id, new_table_id, scope_css
from pairedframe.report.table_latex import CI_LAYOUTS, interval_text, render_latex
from pairedframe.report.table_markdown import render_markdown

__all__ = ["ResultsTable", "results_table", "check_letters", "TABLE_FORMATS", "MAX_LETTERED"]

TABLE_FORMATS = ("latex", "markdown", "html", "terminal")
_UNLIMITED = 100_000                                   # console width to measure a table's natural width


def _baselines(data: TableData) -> list[str]:
    """The rows compared against (one, or several lettered), in the comparison's order; none for all
    pairs, where every row is compared with every other. The letters name the baselines exactly when losses
    are marked (all pairs letter every system), also when every row is a baseline (two baselines of two runs)."""
    if data.mode == "none" or (data.mode == "letters" and not data.settings.get("losses_marked")):
        return []
    return [b for b in data.settings.get("baselines", []) if b in data.systems]


def _baselines_first(data: TableData) -> TableData:
    """The baseline row(s) on top, as a paper's table lists them; the other rows keep their order."""
    first = _baselines(data)
    order = first + [s for s in data.systems if s not in first]
    if order == data.systems:
        return data
    rank = {s: i for i, s in enumerate(order)}
    frame = data.frame.sort(pl.col("system").replace_strict(rank, return_dtype=pl.Int64), maintain_order=True)
    return replace(data, systems=order, frame=frame)


def _number(v: float | None, digits: int) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _cell_parts(row: dict[str, Any], digits: int, ci: str | None) -> tuple[str, str]:
    """(number text, interval text) of one cell; a count trec_eval sums (NumRet, ...) is a whole number."""
    summed = (row["mean"] is not None and aggregate_of(row.get("measure", "")) == "sum"
              and float(row["mean"]).is_integer())
    number = f"{row['mean']:.0f}" if summed else _number(row["mean"], digits)
    if row["mean"] is None or ci is None or row["ci_low"] is None:
        return number, ""
    if ci == "halfwidth" and row.get("halfwidth") is not None:
        return number, f" ± {row['halfwidth']:.{digits}f}"
    return number, " " + interval_text(_end(row["ci_low"], digits), _end(row["ci_high"], digits))  # [low, ∞) one-sided


def _end(v: float, digits: int) -> str:
    """An interval end; an unbounded one as -∞ / ∞ with the hyphen-minus of the negative numbers (LaTeX
    writes every sign as a math minus: $-\\infty$, $-$0.1)."""
    return ("∞" if v > 0 else "-∞") if math.isinf(v) else f"{v:.{digits}f}"


def _render_cell(row: dict[str, Any], digits: int, ci: str | None, fmt: str) -> str:
    """One cell for the terminal (``fmt`` "ansi": rich styles; "terminal": plain) or HTML."""
    number, interval = _cell_parts(row, digits, ci)
    marks, place = row["marks"], row["place"]
    if fmt == "html":                                 # the interval wraps whole, never after "[0.428,"
        body = html.escape(number) + (f' <span style="white-space: nowrap">{html.escape(interval.strip())}</span>'
                                      if interval else "")
        body = f"<strong>{body}</strong>" if place == 1 else f"<u>{body}</u>" if place == 2 else body
        return body + (f"<sup>{html.escape(marks)}</sup>" if marks else "")
    from rich.markup import escape

    body = escape(number + interval)
    if fmt == "ansi":
        body = f"[bold]{body}[/bold]" if place == 1 else f"[underline]{body}[/underline]" if place == 2 else body
    else:                                             # plain text: no styles, so emphasis as in markdown
        body = f"*{body}*" if place == 1 else f"_{body}_" if place == 2 else f" {body} "
    return body + (f" {escape(marks)}" if marks else "")


@dataclass(frozen=True)
class ResultsTable:
    """A rendered-on-demand results table (from :func:`results_table`).

    Attributes
    ----------
    data : TableData
        ``data.frame``: one row per (system, measure) with ``mean, ci_low, ci_high, n_queries,
        place, marks, better_than``; ``data.settings``: what the caption states.
    title : str or None
    """

    data: TableData
    title: str | None = None

    @property
    def table(self) -> pl.DataFrame:
        """The numbers, one row per (system, measure) (see :class:`~pairedframe.comparison.table_data.TableData`)."""
        return self.data.frame

    @property
    def frame(self) -> pl.DataFrame:
        """Renamed: an answer's rows are ``.table`` (one rule for every result object)."""
        raise AttributeError(renamed_attribute("ResultsTable.frame", "ResultsTable.table"))

    @property
    def caption(self) -> str:
        """Plain-text caption naming test, interval, correction, alpha, n_queries, seed and tie rules."""
        return caption_text(self.data)

    def _label(self, system: str) -> str:
        letter = self.data.letters.get(system)
        label = f"({letter}) {system}" if letter else system
        return f"{label} (baseline)" if system in _baselines(self.data) else label

    def _wide(self, fmt: str) -> pl.DataFrame:
        digits, ci = self.data.settings["digits"], self.data.settings["ci"]
        cells: dict[str, list[str]] = {"System": [self._label(s) for s in self.data.systems]}
        by_key = {(r["system"], r["measure"]): r for r in self.data.frame.iter_rows(named=True)}
        for m in self.data.measures:
            cells[m] = [_render_cell(by_key[(s, m)], digits, ci, fmt) for s in self.data.systems]
        return pl.DataFrame(cells)

    def _cells(self) -> list[list[tuple[str, str, str, int | None]]]:
        """(number, interval, marks, place) per row and measure, for the LaTeX and markdown writers."""
        digits, ci = self.data.settings["digits"], self.data.settings["ci"]
        by_key = {(r["system"], r["measure"]): r for r in self.data.frame.iter_rows(named=True)}
        return [[(*_cell_parts(by_key[(s, m)], digits, ci), by_key[(s, m)]["marks"], by_key[(s, m)]["place"])
                 for m in self.data.measures] for s in self.data.systems]

    def to_latex(self, *, label: str | None = None, ci_layout: str = "stacked") -> str:
        """LaTeX ``table`` float with booktabs rules and a ``\\caption``, for pdflatex in a plain
        ``article`` with ``\\usepackage{booktabs}`` (:mod:`pairedframe.report.table_latex`).

        Parameters
        ----------
        label : str, optional
            Adds ``\\label{label}`` after the caption.
        ci_layout : {"stacked", "inline"}, default "stacked"
            Where the ``ci=`` interval goes: on a second line below its number in ``\\footnotesize``
            (narrow enough for four measures with ``[low, high]`` intervals and 20 names in an
            article's text width), or beside it (as the markdown and terminal renderings).

        Returns
        -------
        str
            ``\\begin{table}`` ... ``\\end{table}``: caption (starting with ``title`` in bold when the table
            has one), then a ``tabular`` with one row per system (two with a stacked interval) and per
            measure a right-aligned number column
            followed by its marks column; in ``\\small`` or ``\\footnotesize`` when its estimated width
            or its lines would not fit an article at the text size, with system names too long even for
            ``\\footnotesize`` cut into lines after ``_``, ``-`` or a blank (docs/guide/results_tables.md).

        Raises
        ------
        ValueError
            ``ci_layout`` not one of "inline", "stacked".

        Warns
        -----
        UserWarning
            The measures alone are too wide for an article's text width even in ``\\footnotesize``; the
            float is taller than an article's text height even in ``\\footnotesize`` (too many systems).
        """
        if ci_layout not in CI_LAYOUTS:
            raise ValueError(f"`ci_layout` must be one of {CI_LAYOUTS}, got {ci_layout!r}")
        return render_latex([self._label(s) for s in self.data.systems], self.data.measures, self._cells(),
                            self.caption, label=label, ci_layout=ci_layout, title=self.title)

    def to_html(self, *, table_id: str | None = None) -> str:
        """An HTML fragment (great_tables' ``as_raw_html``) with the caption as a source note and
        ``title`` as its header.

        Parameters
        ----------
        table_id : str, optional
            The element id of the table's ``<div>``; every selector of its ``<style>`` is scoped to
            it, so the CSS styles this table only.  Default: a fresh ``pf-table-<12 hex digits>``, so
            two tables on one page never share an id.

        Raises
        ------
        ImportError
            great_tables is not installed (``pip install "pairedframe[report]"``).
        ValueError
            ``table_id`` is not a letter followed by letters, digits, ``-`` or ``_``.
        """
        table_id = new_table_id() if table_id is None else check_table_id(table_id)
        try:
            from great_tables import GT
        except ImportError as exc:
            raise ImportError("HTML tables need great_tables: pip install 'pairedframe[report]'") from exc
        measures = self.data.measures
        # The cells already hold their HTML markup: an identity formatter makes great_tables pass them
        # through unescaped.
        wide = self._wide("html").with_columns(pl.col("System").map_elements(visible_controls, return_dtype=pl.String))
        gt = (GT(wide, rowname_col="System", id=table_id)
              .fmt(lambda text: text, columns=measures).cols_align("right", columns=measures)
              .tab_source_note(self.caption))
        if self.title:
            gt = gt.tab_header(title=self.title)
        return scope_css(gt.as_raw_html(), table_id)

    def to_markdown(self) -> str:
        """A GitHub (GFM) pipe table followed by the caption; names, title and caption escaped so that
        they render as themselves (:mod:`pairedframe.report.table_markdown`)."""
        return render_markdown([self._label(s) for s in self.data.systems], self.data.measures, self._cells(),
                               self.caption, title=self.title)

    def to_terminal(self, *, width: int | None = None, ansi: bool = False) -> str:
        """A rich table as text.

        Parameters
        ----------
        width : int, optional
            Width the caption wraps at (default 100).  The table itself is as wide as its cells need,
            however wide that is: a cell is never cut, so no significance mark is lost.
        ansi : bool, default False
            Best bold and second underlined as ANSI styles; otherwise plain text with the best value
            as ``*x*`` and the second as ``_x_``.

        Returns
        -------
        str
            The table (one row per system, one column per measure) and the caption below it.
        """
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        wide = self._wide("ansi" if require_bool(ansi, "ansi") else "terminal")
        # names are text, not rich markup ("[bold]x" stays): Text, as escape() doubles a trailing backslash
        table = Table(title=None if self.title is None else Text(self.title))
        for name in wide.columns:
            table.add_column(Text(name), justify="left" if name == "System" else "right", no_wrap=True)
        for label, *cells in wide.iter_rows():
            table.add_row(Text(label), *cells)
        buf = io.StringIO()
        console = Console(file=buf, width=_UNLIMITED, highlight=False, force_terminal=ansi, no_color=not ansi)
        # rich shrinks a table to the console by cutting cells with an ellipsis, marks first: widen instead.
        console.width = max(width or 100, console.measure(table).maximum)
        console.print(table)
        # the caption names the emphasis the cells carry: plain text has *x* and _x_, not bold
        caption = self.caption if ansi else caption_text(self.data, best="*x*", second="_x_")
        console.print(caption, markup=False)
        return buf.getvalue()

    def render(self, fmt: str) -> str:
        """``to_latex()``, ``to_markdown()``, ``to_html()`` or ``to_terminal()`` by name (:data:`TABLE_FORMATS`)."""
        if fmt not in TABLE_FORMATS:
            raise ValueError(f"format must be one of {TABLE_FORMATS}, got {fmt!r}")
        return {"latex": self.to_latex, "markdown": self.to_markdown, "html": self.to_html,
                "terminal": self.to_terminal}[fmt]()

    def save(self, path: str | Path) -> Path:
        """Write the rendering chosen by the suffix (``.tex``, ``.md``, ``.html``, ``.txt``); ValueError for
        another suffix or a folder that does not exist."""
        out = require_output_folder(path, "path")
        kinds = {".tex": "latex", ".md": "markdown", ".html": "html", ".htm": "html", ".txt": "terminal"}
        if out.suffix.lower() not in kinds:
            raise ValueError(f"unknown table suffix {out.suffix!r}; use one of {sorted(kinds)}")
        out.write_text(self.render(kinds[out.suffix.lower()]), encoding="utf-8")
        return out

    def __str__(self) -> str:
        return self.to_terminal()

    def _repr_html_(self) -> str:
        """A notebook shows the HTML table (its CSS scoped to a fresh id); plain text when great_tables
        is not installed."""
        try:
            return self.to_html()
        except ImportError:
            return f"<pre>{html.escape(self.to_terminal())}</pre>"


#: Letter marks run from a to z.
MAX_LETTERED = 26


def _count_systems(source: Any, systems: Any) -> int:
    """How many rows the table will have, known before any comparison is computed."""
    if systems is not None:
        return 1 if isinstance(systems, str) else len(list(systems))
    if hasattr(source, "systems"):
        return len(source.systems)
    frame = getattr(source, "per_query", source)
    return frame["system"].n_unique() if isinstance(frame, pl.DataFrame) and "system" in frame.columns else 0


def check_letters(n_lettered: int, *, pairs: bool | str) -> None:
    """ValueError when the letter marks cannot name ``n_lettered`` systems (more than :data:`MAX_LETTERED`),
    raised before the comparison is computed; the message names ``pairs=`` or ``baseline=``."""
    if n_lettered <= MAX_LETTERED:
        return
    if pairs:
        raise ValueError(f"pairs={pairs if isinstance(pairs, str) else 'all'!r} letters every system (a-z), so it can mark at most {MAX_LETTERED} systems, "
                         f"got {n_lettered}: choose at most {MAX_LETTERED} with systems=, or compare with one "
                         "baseline= (daggers, no letters)")
    raise ValueError(f"several baseline= systems are lettered a-z, so at most {MAX_LETTERED} fit, got {n_lettered}")


def _refuse_rendering_options(options: dict[str, Any]) -> None:
    """TypeError naming the method a rendering option belongs to (it would reach compare as an unknown keyword)."""
    rendering = {"ci_layout": "to_latex", "label": "to_latex", "table_id": "to_html"}
    misplaced = [k for k in options if k in rendering]
    if misplaced:
        k = misplaced[0]
        raise TypeError(f"results_table() got the rendering option `{k}`: it belongs to the table's "
                        f"{rendering[k]}(), e.g. pf.results_table(...).{rendering[k]}({k}=...)")


def _unused_compare_options(names: list[str], *, given_comparison: bool) -> str:
    """The message for keywords results_table passes on only to the pf.compare it runs, when it runs none."""
    import inspect

    from pairedframe.comparison.paired import compare

    unknown = [n for n in names if n not in inspect.signature(compare).parameters]
    if unknown:
        return (f"results_table() got unexpected keyword(s) {unknown}: an argument neither of results_table nor of "
                "pf.compare (which it runs with baseline= or pairs=); check the spelling")
    head = (f"results_table() got unexpected keyword(s) {names}: results_table passes them on to pf.compare, "
            "which it runs only with baseline= or pairs=")
    if given_comparison:
        return f"{head}; with comparison= given, set them in the pf.compare(...) call that made it"
    return (f"{head}; pass baseline= (one system, or several) or pairs='all' to compare the systems with "
            "these options, or drop them for a table of means alone")


@renamed_keywords(**OLD_LEVEL_AND_SEED)
def results_table(data: Any = None, comparison: pl.DataFrame | None = None, *, baseline: Any = None,
                  pairs: str | None = None, measures: Any = None, systems: Any = None, judgments: str | None = None,
                  correction: str | None = None, ci: str | None = None, confidence_level: float | None = None,
                  digits: int = 3, title: str | None = None,
                  **compare_options: Any) -> ResultsTable:
    """The results table of a paper: rows = systems, columns = measures, with significance marks.

    Parameters
    ----------
    data : Evaluation, JudgmentSetsEvaluation, per-query table or path, optional
        The means (over each system's evaluated queries, as trec_eval's ``all`` rows) and intervals.
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    comparison : polars.DataFrame, optional
        A :func:`pairedframe.compare` result to take the marks from.  Without it, ``baseline=`` or
        ``pairs=`` runs :func:`pairedframe.compare` on ``data`` (with ``compare_options``).
    baseline : str or sequence of str, optional
        One baseline (marks: ``†`` better, ``‡`` worse) or several (letters, as ranx: the letters of
        the baselines a cell is significantly better than, then ``‡`` and those it is worse than, ``a‡b``).
    pairs : {"all", "ordered"}, optional
        Compare every pair of systems (``"ordered"``: both ways); cells list the letters of those they beat.
    measures, systems : str or sequence, optional
        Columns and rows in order (default: all, the baseline(s) first).  The baseline rows read
        ``name (baseline)`` in every format (not for ``pairs=``, which has none).
    judgments : str, optional
        The judgment set to tabulate when ``data`` holds several (judgment sets, or a per-query table with a
        ``judgments`` column, as their ``per_query`` saved); the caption names it.
    correction : {"holm", "bh", "none", "tukey"}, optional
        The p-values deciding significance; ``"tukey"``: the randomised Tukey HSD of an all-pairs
        comparison where the pair's own test also rejects (``pvalue_max_tukey_raw``; the Tukey HSD
        alone assumes systems exchangeable within a query).  Default: a given ``comparison``'s own
        correction (``pf.compare(..., correction="bh")`` marks by its BH-adjusted p-values, as its
        level sets ``alpha``), else ``"holm"``.  Given explicitly, it wins: the marks read that
        column of the comparison (compare computes Holm, BH and raw p-values over the same family),
        and the comparison computed from ``baseline=``/``pairs=`` uses it for its verdicts.  The
        caption names the correction used.
    ci : {None, "halfwidth", "range"}
        Show each mean's t interval as ``± half-width`` or ``[low, high]``.
    confidence_level : float, optional
        Of the comparison computed from ``baseline=``/``pairs=`` (its tests' level is ``alpha = 1 - level``,
        as :func:`pairedframe.compare`) and of the mean intervals; default 0.95, or the level of a given
        ``comparison`` (whose level also sets the marks' ``alpha``).
    digits : int, default 3
    title : str, optional
        Title of every rendering: the HTML header, a bold line above the markdown table, the terminal
        table's title, and the LaTeX caption's bold start (alone in a list of tables). Surrounding blanks are
        dropped; a title of blanks only is no title.
    **compare_options
        Passed to :func:`pairedframe.compare` (``n_resamples``, ``seed``, ``test``, ``family_by``, ...).

    Returns
    -------
    ResultsTable
        ``to_latex()``, ``to_markdown()``, ``to_html()``, ``to_terminal()``, ``caption``, ``table`` (the
        table as polars, one row per system and measure).

    Raises
    ------
    ValueError
        See :func:`pairedframe.comparison.table_data.results_table_data`; ``baseline``/``pairs``
        together with ``comparison``; ``measures`` naming a string-valued measure.

    Warns
    -----
    UserWarning
        String-valued measures (RelString) in ``data`` are left out (named in the warning).
    PartlyEmptyWarning
        With ``baseline=`` / ``pairs=``: comparisons with fewer than 2 queries both systems have a value
        for cannot be tested, so they are left out of the comparison (and its Holm / BH family) and
        their cells are unmarked; the warning and the caption name each and its common queries (none
        testable: the means alone, "No comparison is possible").  :func:`pairedframe.compare` itself
        refuses them.

    Examples
    --------
    >>> t = pf.results_table(ev, baseline="bm25", measures=["nDCG@10", "AP"])  # doctest: +SKIP
    >>> print(t.to_latex())                                                     # doctest: +SKIP

    """
    if comparison is not None and (baseline is not None or pairs is not None):
        raise ValueError("pass either a comparison or baseline=/pairs= to compute one, not both")
    _refuse_rendering_options(compare_options)    # to_latex's / to_html's, with or without a baseline
    reject_text_measures(measures)
    data = read_if_paths(data)  # once, for the comparison and the means
    all_pairs, asked = None, None
    computed = comparison is None and (baseline is not None or pairs is not None)
    if computed:
        if data is None:
            raise ValueError("baseline=/pairs= need the evaluation as `data`")
        from pairedframe.report.comparable import compare_what_can_be

        source = data
        if judgments is not None and callable(getattr(data, "check_names", None)):
            data.check_names(judgments)
            # the set stays a key column, so the family reads as pf.compare's on every set: per judgments
            source = data.per_query.filter(pl.col("judgments") == judgments)
        elif judgments is not None:                   # a saved evaluate_judgment_sets(...).per_query
            source = one_set_of_table(data, judgments)
        if callable(getattr(source, "check_names", None)):
            raise ValueError(f"name the judgment set to tabulate with judgments=; the sets are {source.names}")
        if pairs is not None:                         # "all" and "ordered" letter every system
            check_letters(_count_systems(source, systems), pairs=pairs)
        elif not isinstance(baseline, str) and baseline is not None:
            check_letters(len(baseline_names(baseline)), pairs=False)
        level = 0.95 if confidence_level is None else confidence_level
        alternative = compare_options.get("alternative", "two-sided")
        if correction == "tukey" and alternative != "two-sided":
            raise ValueError(f"correction='tukey' with alternative={alternative!r}: the randomised Tukey HSD is "
                             "two-sided (it tests the largest absolute difference), so no cell could be marked; use "
                             "correction='holm' or 'bh', or alternative='two-sided'")
        verdicts = correction if correction in ("holm", "bh", "none") else "holm"  # tukey: marks only
        if systems is not None and baseline is not None:   # the baseline rows stay, as compare keeps them
            named = [baseline] if isinstance(baseline, str) else list(baseline)
            chosen = [systems] if isinstance(systems, str) else list(systems)
            systems = [b for b in named if b not in chosen] + chosen
        # a comparison with too few common queries is left out (warned, unmarked), not the whole table
        comparison = compare_what_can_be(source, baseline=baseline, pairs=pairs, measures=measures, systems=systems,
                                         confidence_level=level, correction=verdicts, **compare_options)
        comparison = comparison if comparison.height else None
        # Known here, not guessed from the pairs: two baselines among three systems compare every pair too,
        # and two baselines of two runs are compared once (the rows name one baseline; both are lettered).
        all_pairs = pairs is not None
        asked = None if baseline is None else [baseline] if isinstance(baseline, str) else list(baseline)
    elif compare_options:
        raise TypeError(_unused_compare_options(sorted(compare_options), given_comparison=comparison is not None))
    with warnings.catch_warnings():
        if computed:                                  # compare warned of the same table's values already
            warnings.simplefilter("ignore", ValueRangeWarning)
        table = results_table_data(data, comparison, measures=measures, systems=systems, judgments=judgments,
                                   correction=correction, ci=ci, confidence_level=confidence_level,
                                   digits=digits, all_pairs=all_pairs, baselines=asked)
    if systems is None:                               # the caller's row order, else the baselines first
        table = _baselines_first(table)
    return ResultsTable(table, title=_title(title))


def _title(title: Any) -> str | None:
    """``title`` without surrounding blanks (markdown's ``**Is it? **`` is no bold), None when nothing is left."""
    if title is None:
        return None
    if not isinstance(title, str):
        raise TypeError(f"`title` must be a str or None, got {type(title).__name__}")
    return title.strip() or None
