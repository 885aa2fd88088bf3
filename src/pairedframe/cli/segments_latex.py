"""LaTeX of ``pairedframe segments -f latex``: a booktabs ``tabular`` that fits an article's page, as
``compare -f latex`` does (:mod:`pairedframe.report.compare`), with the numbers written as the other CLI
formats write them (one number format per column, :func:`~pairedframe.cli.text_table.column_texts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from pairedframe.cli.text_table import column_texts
from pairedframe.report.table_latex import (FOOTNOTESIZE, interval_text, latex_comment, latex_escape, latex_interval,
                                            latex_number, latex_row, pvalue_text, tabular_font_size, tabular_width,
                                            text_width)
from pairedframe.report.table_latex_page import (ARTICLE_TEXT_HEIGHT, ARTICLE_TEXT_WIDTH, caption_height, tabular_height,
                                                 warn_too_tall, warn_too_wide)

__all__ = ["segments_latex"]

#: The key columns of a segment comparison, in the order printed.
KEYS = ("system", "measure", "segment_set", "segment")
#: The p-value column ``significant`` follows, and its header (LaTeX, plain text), by ``--correction``.
_P_COLUMN = {"bh": ("pvalue_bh", "$p$ (BH)", "p (BH)"), "holm": ("pvalue_holm", "$p$ (Holm)", "p (Holm)")}
#: The columns the table rendering shows beside those kept here (named in a comment when left out).
_SHOWN_ELSEWHERE = ("pvalue", "pvalue_bh", "pvalue_holm")


def segments_latex(frame: pl.DataFrame, *, correction: str, confidence_level: float, title: str | None = None,
                   settings: Mapping[str, Any] | None = None, digits: int = 4) -> str:
    r"""A booktabs ``tabular`` of a segment comparison for a paper page.

    Parameters
    ----------
    frame : polars.DataFrame
        :func:`~pairedframe.comparison.segments.compare_segments`'s result.
    correction : {"bh", "holm"}
        The adjustment ``significant`` follows: its p-value is the one shown.
    confidence_level : float
        Of the intervals (the delta column's header).
    title : str, optional
        A ``%`` comment above the ``tabular`` (which goes into the writer's own ``table`` float).
    settings : mapping, optional
        ``%`` comment lines (``key: value``) below it.
    digits : int
        Decimals of the numbers.

    Returns
    -------
    str
        The segment_set and segment, ``n``, the delta with its interval on a ``\footnotesize`` line below it
        (half-open when one-sided, ``[-0.0056, ∞)``; no line for a segment without one), the p-value of
        ``correction`` and ``significant`` as yes / no (empty without a p-value), under a heading line per system and measure
        (``bm25_rm3 / nDCG@10``, spanning the columns: 4 key columns of run names were 100 pt too wide for
        an article even in ``\footnotesize``, 13 columns were 440 pt); a ``%`` comment
        names the columns left out (the raw and the other adjusted p-value: csv and json hold them) and one
        per row with a warning gives it. Set in ``\small`` or ``\footnotesize`` (in a group, with 4 pt column
        padding) when its estimated width would not fit an article's text width or its lines the page
        (:func:`~pairedframe.report.table_latex.tabular_font_size`), as ``compare -f latex``. p-values as
        ``compare -f latex`` writes them (:func:`~pairedframe.report.table_latex.pvalue_text`: ``digits``
        decimals, ``<0.0001`` below); a line break in a name is a blank, in the comments too.

    Raises
    ------
    ValueError
        ``correction`` is not "bh" or "holm".

    Warns
    -----
    UserWarning
        Too wide for an article's text width, or with a one-line caption too tall for its page, even in
        ``\footnotesize`` (worded as the results table's and ``compare -f latex``'s warnings).
    """
    if correction not in _P_COLUMN:
        raise ValueError(f"`correction` must be one of {tuple(_P_COLUMN)}, got {correction!r}")
    p_column, p_header, p_plain = _P_COLUMN[correction]
    group_keys = [k for k in KEYS[:2] if k in frame.columns]          # a heading line above their segments
    keys = [k for k in KEYS[2:] if k in frame.columns]
    ci = f"delta [{confidence_level * 100:g}% CI]"
    headers = [*((latex_escape(k), k) for k in keys), ("$n$", "n"), (latex_escape(ci), ci), (p_header, p_plain),
               ("significant", "significant")]
    shown = [*keys, "n_queries", "delta", p_column, "significant"]
    # one number format per column, as the table, markdown and csv formats (column_texts)
    texts = dict(zip([*shown, "ci_low", "ci_high"], column_texts(frame.select(*shown, "ci_low", "ci_high"), digits)))
    numeric = {c for c in shown if frame.schema[c].is_numeric()}
    texts[p_column] = [pvalue_text(p, digits) for p in frame[p_column]]   # as compare -f latex writes its p
    texts["significant"] = significant_texts(frame, correction)
    widths = [[text_width(plain)] for _, plain in headers]
    fixed = [0.0] * len(headers)
    interval = len(keys) + 1
    lines: list[str] = []
    notes, group, heading, groups, intervals = [], None, 0.0, 0, 0
    for i, row in enumerate(frame.iter_rows(named=True)):
        if tuple(row[k] for k in group_keys) != group:
            group = tuple(row[k] for k in group_keys)
            text = " / ".join(map(str, group))
            heading = max(heading, text_width(text))
            groups += 1
            lines += [r"\midrule"] if lines else []
            lines.append(rf"\multicolumn{{{len(headers)}}}{{l}}{{{latex_escape(text)}}} \\")
        values = [texts[c][i] for c in shown]
        for column, v in zip(widths, values):
            column.append(text_width(v))
        low, high = texts["ci_low"][i], texts["ci_high"][i]
        first = latex_row([(latex_number if c in numeric else latex_escape)(v) for c, v in zip(shown, values)])
        if low and high:                                 # a one-query segment has none: no empty line below it
            text = interval_text(low, high)              # [low, ∞) one-sided
            fixed[interval] = max(fixed[interval], FOOTNOTESIZE * text_width(text))
            second = rf"{{\footnotesize {latex_interval(low, high)}}}"
            lines.append(first[:-2] + r"\\[-2pt]")                      # the small line sits closer
            lines.append(" & ".join(second if j == interval else "" for j in range(len(headers))) + r" \\")
            intervals += 1
        else:
            lines.append(first)
        if row.get("warning"):
            notes.append(latex_comment(f"warning ({' / '.join(str(row[k]) for k in (*group_keys, *keys))}): "
                                       f"{' '.join(row['warning'].split())}"))
    columns = [max(w) for w in widths]
    spare = heading - (sum(columns) + 8.0 * (len(columns) - 1))        # a heading wider than the columns widens the last
    columns[-1] += max(spare, 0.0)
    size = tabular_font_size(columns, len(lines), fixed=fixed)
    _check_page(columns, fixed, size, frame.height, groups, intervals)
    left_out = [c for c in _SHOWN_ELSEWHERE if c in frame.columns and c != p_column]
    return "\n".join([*([latex_comment(title)] if title else []),
                      r"\begingroup" + size + r"\setlength{\tabcolsep}{4pt}%",
                      r"\begin{tabular}{" + "l" * len(keys) + "rrrl}", r"\toprule",
                      " & ".join(h for h, _ in headers) + r" \\", r"\midrule", *lines, r"\bottomrule",
                      r"\end{tabular}%", r"\endgroup",
                      f"% columns left out here (in -f csv / json): {', '.join(left_out)}", *notes,
                      *(latex_comment(f"{k}: {v}") for k, v in (settings or {}).items())]) + "\n"


def significant_texts(frame: pl.DataFrame, correction: str) -> list[str]:
    """The ``significant`` column as every human-readable format prints it (LaTeX, markdown, the terminal
    table): yes / no, empty where ``correction``'s p-value was not computed (:func:`_significant`)."""
    p_column = _P_COLUMN[correction][0]
    return [_significant(s, p) for s, p in zip(frame["significant"], frame[p_column])]


def _significant(significant: bool | None, p: float | None) -> str:
    """``significant`` as a paper writes it: yes / no, as ``compare -f latex`` writes its verdict in words (Python's
    True / False read as code); nothing where no p-value was computed (a one-query segment), as its p cell."""
    return "" if p is None or p != p or significant is None else "yes" if significant else "no"


def _check_page(columns: list[float], fixed: list[float], size: str, rows: int, groups: int, intervals: int) -> None:
    """Warn when the tabular of ``rows`` segments (``intervals`` of them with an interval line) under ``groups``
    headings is too wide for an article's text width, or with a one-line caption too tall for its page, as
    ``compare -f latex`` does."""
    width = tabular_width(columns, size, fixed=fixed)
    if width > ARTICLE_TEXT_WIDTH:
        names = tabular_width(columns[:-4], size, fixed=fixed[:-4])
        warn_too_wide(width, size, f": its segment_set and segment columns take {names:.0f} pt",
                      "shorten the longest segment and system names")
    lines = 1 + groups + rows + intervals              # the header, the headings, a number line a row, interval lines
    height = caption_height(0.0) + tabular_height(lines, size, pulled=2.0 * intervals, midrules=groups)
    if height > ARTICLE_TEXT_HEIGHT:
        warn_too_tall(height, size, f" with a one-line caption: its {rows} segment rows take {lines} lines",
                      "show fewer systems, measures or segments per table (e.g. one table per measure) or make it a "
                      "longtable (\\usepackage{longtable}), which breaks across pages")
