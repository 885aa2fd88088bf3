"""Renderings of :func:`pairedframe.compare` results: table, json, csv, markdown, latex.

Every rendering names the test, the interval, n_resamples, the seed, the tie rules and the
query-set policy, so a result can be reproduced from its output alone.
"""

from __future__ import annotations

import io
import math
from typing import Any

import polars as pl

from pairedframe.comparison.paired import PVALUE_TIE_RULE, QUERY_SET_POLICY, WIN_RULE
from pairedframe.report.output import json_text
from pairedframe.report.table_latex import (FOOTNOTESIZE, interval_text, latex_comment, latex_escape, latex_interval,
                                            latex_number, latex_pvalue, latex_row, pvalue_text, tabular_font_size,
                                            tabular_width, text_width)
from pairedframe.report.table_latex_page import (ARTICLE_TEXT_HEIGHT, ARTICLE_TEXT_WIDTH, SIZES, SMALL_LINE,
                                                 caption_height, stacked_pull, stacked_row_end, tabular_height,
                                                 warn_too_tall, warn_too_wide)
from pairedframe.report.table_markdown import markdown_escape

__all__ = ["FORMATS", "comparison_settings", "format_comparison"]

FORMATS = ("table", "json", "csv", "markdown", "latex")

#: Columns shown by the human-readable formats (table, markdown, latex); json and csv keep all.
_SHORT = ["n_queries", "baseline_mean", "system_mean", "delta", "ci_low", "ci_high", "pvalue", "pvalue_holm",
          "pvalue_tukey", "pvalue_max_tukey_raw", "wins", "losses", "ties", "mde", "verdict", "certified"]
_CONSTANT = ["baseline", "verdict_on", "test", "interval", "confidence_level", "alternative", "n_resamples", "seed",
             "family", "resampling", "decision_error", "method"]
_HIDDEN = ("se", "pvalue_bh", "sd", "exact", "pvalue_low", "pvalue_high", "resamples_used", "skewness",
           "verdict_note")


#: The sign-flip extremeness rule of a one-sided alternative (stats.randomization.is_extreme).
_ONE_SIDED_RULE = {"greater": "T* >= T - 100*eps*max(|T|, mean|d|)", "less": "T* <= T + 100*eps*max(|T|, mean|d|)"}


def pvalue_tie_rule(alternative: Any) -> str:
    """How the sign-flip p-value counts a null statistic as extreme under ``alternative``: two-sided
    ``|T*| >= |T|`` (:data:`~pairedframe.comparison.PVALUE_TIE_RULE`), ``T* >= T`` for ``"greater"``,
    ``T* <= T`` for ``"less"`` (each with its rounding tolerance); several alternatives: each one's."""
    if isinstance(alternative, list):
        return "; ".join(f"{a}: {pvalue_tie_rule(a)}" for a in alternative)
    if alternative not in _ONE_SIDED_RULE:
        return PVALUE_TIE_RULE
    return (f"sign-flip null statistics with {_ONE_SIDED_RULE[alternative]} count as extreme (alternative "
            f"{alternative!r}); p = (b+1)/(m+1), or b/2^n when all 2^n sign patterns are enumerated")


#: How a p-value was computed where no sign-flip null statistic was drawn (compare's ``method``).
_NO_DRAWS = {"one-pass": "one pass: the sign-flip test by its normal approximation, z = sum(d)/sqrt(sum(d^2)), "
                         "p = 2 Phi(-|z|) (one-sided: one tail), at least 5e-324; no sign flips drawn",
             "t": "paired t-test: p from Student's t distribution with n-1 df; no sign flips drawn"}


def pvalue_rule(alternative: Any, method: Any = None, test: Any = None) -> str:
    """The ``pvalue_tie_rule`` setting: :func:`pvalue_tie_rule` for resampled p-values, else what computed
    them (``method`` ``"one-pass"``, ``test`` ``"t"``); several methods: each one's."""
    if test == "t":
        return _NO_DRAWS["t"]
    if isinstance(method, list):
        return "; ".join(f"{m} rows: {pvalue_rule(alternative, m).removeprefix('one pass: ')}" for m in method)
    return _NO_DRAWS["one-pass"] if method == "one-pass" else pvalue_tie_rule(alternative)


def comparison_settings(frame: pl.DataFrame, evaluation_settings: Any = None) -> dict[str, Any]:
    """Everything needed to reproduce a comparison, as a flat dict.

    Parameters
    ----------
    frame : polars.DataFrame
        A result of :func:`~pairedframe.compare`.
    evaluation_settings : EvaluationSettings, optional
        Adds the evaluation's ranking tie rule, query-set policy, relevance level and score precision,
        and its depth (trec_eval -M), ``judged_only`` (-J) and ``grades`` (``"trec_eval"``) when set.
    """
    out: dict[str, Any] = {}
    for c in _CONSTANT:
        if c in frame.columns and frame.height:
            vals = frame[c].unique(maintain_order=True).to_list()
            out[c] = vals[0] if len(vals) == 1 else vals
    if "exact" in frame.columns and frame.height:
        out["exact_enumeration"] = bool(frame["exact"].any())
    out["pairing"] = QUERY_SET_POLICY
    out["pvalue_tie_rule"] = pvalue_rule(out.get("alternative"), out.get("method"), out.get("test"))
    out["win_rule"] = WIN_RULE
    family = out.pop("family", None)
    out["multiple_comparisons"] = (f"Holm and Benjamini-Hochberg, family: {family}" if isinstance(family, str) else
                                   "Holm and Benjamini-Hochberg over all rows (unless family_by); NaN p left out")
    if "decision_error" in frame.columns and frame.height:
        out["certified_decisions"] = (f"P(some certified verdict of a family differs from the one of the exact "
                                      f"sign-flip p-values) <= {frame['decision_error'][0]:g}")
    if evaluation_settings is not None:
        out.update(evaluation_settings_dict(evaluation_settings))
    return out


def evaluation_settings_dict(evaluation_settings: Any) -> dict[str, Any]:
    """The evaluation's settings a comparison or leaderboard states: its ranking tie rule, query-set policy,
    relevance level and score precision, and its depth, ``judged_only`` and ``grades`` when set."""
    es = evaluation_settings.as_dict()
    out = {"ranking_tie_rule": es["tie_rule"], "evaluation_query_set": es["query_set"], "rel_level": es["rel_level"],
           "score_precision": es["score_precision"]}
    # stated only when used, so that a default evaluation's settings read as before
    if es["depth"] is not None:
        out["depth"] = es["depth"]
    if es["judged_only"]:
        out["judged_only"] = True
    if es["grades"] != "strict":
        out["grades"] = es["grades"]
    return out


def _num(v: Any, digits: int) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v != 0 and abs(v) < 10 ** -digits:
            return f"{v:.1e}"
        return f"{v:.{digits}f}"
    return str(v)


def _end(v: Any, digits: int) -> str:
    """An interval end as :func:`~pairedframe.report.table_latex.interval_text` reads it: an unbounded one ``∞``."""
    return ("∞" if v > 0 else "-∞") if isinstance(v, float) and math.isinf(v) else _num(v, digits)


#: Unbounded interval ends (one-sided intervals) as each format writes infinity, with the sign its negative
#: numbers have (markdown: hyphen-minus, -0.0180; LaTeX: math minus, $-$0.0180); the terminal keeps ``inf``.
_INFINITY = {"markdown": ("-∞", "∞"), "latex": (r"$-\infty$", r"$\infty$")}


def _text_cell(v: Any, digits: int, fmt: str) -> str:
    """A value as escaped markdown / LaTeX text, an infinite one as the format's infinity sign."""
    if isinstance(v, float) and math.isinf(v):
        return _INFINITY[fmt][v > 0]
    if fmt == "latex":
        numeric = isinstance(v, (int, float)) and not isinstance(v, bool)
        return (latex_number if numeric else latex_escape)(_num(v, digits))
    return markdown_escape(_num(v, digits))


def _short(frame: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in frame.columns if c not in _SHORT and c not in _CONSTANT and c not in _HIDDEN]
    if "baseline" in frame.columns and frame["baseline"].n_unique() > 1:   # several baselines or all pairs
        keys = ["baseline", *keys]
    return frame.select(*keys, *_varying(frame, _PER_ROW), *[c for c in _SHORT if c in frame.columns])


#: Settings that can differ from row to row (one-pass, analytic and resampled rows): a column where they do.
_PER_ROW = ("interval", "method")


#: What the settings say of an interval or method that differs between rows (LaTeX: of its CI letters).
_PER_ROW_TEXT = "per row: see the interval and method columns"
_PER_ROW_LATEX = "per row: see the CI column and its legend below the table"


def _varying(frame: pl.DataFrame, columns: tuple[str, ...]) -> list[str]:
    return [c for c in columns if c in frame.columns and frame[c].n_unique() > 1]


def _readable_settings(settings: dict[str, Any], frame: pl.DataFrame | None = None) -> dict[str, Any]:
    """The settings as the human-readable formats print them: a setting that differs between rows points at its
    column (or, for ``n_resamples``, says where it applies); nothing resampled is said in words, never ``None``."""
    out = dict(settings)
    for name in _PER_ROW:
        if isinstance(out.get(name), list):
            out[name] = _PER_ROW_TEXT
    if "n_resamples" in out:
        out["n_resamples"] = n_resamples_text(out["n_resamples"], frame)
    return out


def n_resamples_text(n: Any, frame: pl.DataFrame | None = None) -> Any:
    """The ``n_resamples`` setting as the human-readable formats print it.

    Parameters
    ----------
    n : int, list or None
        The setting: the one value of the rows, their distinct values (None where nothing was drawn), or None.
    frame : polars.DataFrame, optional
        The result (of :func:`~pairedframe.compare` or :func:`~pairedframe.compare_segments`); where its
        ``method`` column says "exact", the count is of sign patterns enumerated, not of resamples drawn.

    Returns
    -------
    int or str
        ``n`` when one value (``"8 sign patterns enumerated (every row exact)"`` when it counts patterns);
        ``"none (nothing resampled)"``; else, e.g., ``"10000 on resampled rows; 32 sign patterns enumerated
        on exact rows (none on the others)"``.
    """
    drawn = [v for v in n if v is not None] if isinstance(n, list) else [n]
    if n is None or drawn == []:
        return "none (nothing resampled)"
    if not isinstance(n, list):
        exact = frame is not None and "method" in frame.columns and \
            frame.filter(pl.col("n_resamples").is_not_null())["method"].unique().to_list() == ["exact"]
        return f"{n} sign patterns enumerated (every row exact)" if exact else n
    enumerated: list[Any] = []
    if frame is not None and "method" in frame.columns:
        rows = frame.select("n_resamples", "method").drop_nulls()
        enumerated = rows.filter(pl.col("method") == "exact")["n_resamples"].unique(maintain_order=True).to_list()
        drawn = rows.filter(pl.col("method") != "exact")["n_resamples"].unique(maintain_order=True).to_list()
    parts = [f"{', '.join(str(v) for v in drawn)} on resampled rows"] if drawn else []
    if enumerated:
        parts.append(f"{', '.join(str(v) for v in enumerated)} sign patterns enumerated on exact rows")
    return "; ".join(parts) + (" (none on the others)" if None in n else " (per row)")


def _footer(settings: dict[str, Any], frame: pl.DataFrame | None = None) -> list[str]:
    lines = [f"{k}: {v}" for k, v in settings.items()]
    if frame is not None and "verdict_note" in frame.columns:
        # why a verdict reads as it does (which of interval and p-value decides, what limits the test)
        for row in frame.filter(pl.col("verdict_note").is_not_null()).iter_rows(named=True):
            lines.append(f"note ({_row_name(frame, row)}): {row['verdict_note']}")
    return lines


def _row_name(frame: pl.DataFrame, row: dict[str, Any]) -> str:
    """A comparison's name in a note: ``system / measure``, ``system vs baseline / measure`` against several
    baselines (--pairs all: the same system and measure are compared with each other run)."""
    system = str(row["system"]) if "system" in frame.columns else ""
    if "baseline" in frame.columns and frame["baseline"].n_unique() > 1:
        system = f"{system} vs {row['baseline']}"
    rest = [str(row[k]) for k in ("dataset", "measure") if k in frame.columns]
    return " / ".join([system, *rest] if system else rest)


def format_comparison(frame: pl.DataFrame, fmt: str = "table", *, evaluation_settings: Any = None,
                      float_digits: int = 4, title: str | None = None) -> str:
    """Render a comparison frame.

    Parameters
    ----------
    frame : polars.DataFrame
        From :func:`~pairedframe.compare`.
    fmt : {"table", "json", "csv", "markdown", "latex"}
        ``json``: ``{"settings": {...}, "rows": [...]}`` with every column; ``csv``: every column plus
        ``pairing`` and ``pvalue_tie_rule`` columns; the others show the main columns under ``title``
        (markdown: pandoc's ``Table:`` caption line; LaTeX: a ``%`` comment above the ``tabular``, which
        goes into the writer's own ``table`` float) and the settings as footer lines (``%`` comments in LaTeX).
        LaTeX keeps to a page's width: the keys, ``n``, the delta with its interval below it (one-sided: half-open,
        ``[-0.0343, ∞)``), the p-value the
        verdicts follow (``float_digits`` decimals, below them ``<0.0001`` for 4, as ``segments -f latex``) and
        the verdict, in ``\\small`` or ``\\footnotesize`` when needed (docs/guide/comparing.md); a line break in a
        name is a blank. A ``verdict_note`` is a footer line ``note (system / measure): ...``, against several
        baselines ``note (system vs baseline / measure): ...``.
    evaluation_settings : EvaluationSettings, optional
        Added to the settings (ranking tie rule, evaluation query set).
    float_digits : int
        Decimals of floats in table / markdown / latex.
    title : str, optional
        The table's title; default "paired comparison vs baseline (delta = system - baseline)".

    Returns
    -------
    str
        Ends with a newline.

    Warns
    -----
    UserWarning
        LaTeX too wide for an article's text width, or with a one-line caption too tall for its page, even in
        ``\\footnotesize`` (worded as the results table's warnings).
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    settings = comparison_settings(frame, evaluation_settings)
    if fmt == "json":
        return json_text({"settings": settings, "rows": frame.to_dicts()})
    if fmt == "csv":
        extra = frame.with_columns(pl.lit(settings["pairing"]).alias("pairing"),
                                   pl.lit(settings["pvalue_tie_rule"]).alias("pvalue_tie_rule"))
        if "ranking_tie_rule" in settings:
            extra = extra.with_columns(pl.lit(settings["ranking_tie_rule"]).alias("ranking_tie_rule"))
        return extra.write_csv()
    settings = _readable_settings(settings, frame)
    short = _short(frame)
    caption = title or "paired comparison vs baseline (delta = system - baseline)"  # says what delta is
    if fmt == "markdown":
        lines = ["| " + " | ".join(map(markdown_escape, short.columns)) + " |",
                 "| " + " | ".join("---:" if t.is_numeric() else "---" for t in short.dtypes) + " |"]
        lines += ["| " + " | ".join(_text_cell(v, float_digits, fmt) for v in r) + " |" for r in short.iter_rows()]
        lines += ["", f"Table: {markdown_escape(caption)}", ""]  # pandoc's caption line
        lines += [f"- {markdown_escape(line)}" for line in _footer(settings, frame)]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        return _latex(frame, short, settings, caption, float_digits)
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    cells = [[_num(v, float_digits) for v in row] for row in short.iter_rows()]

    # names are text, not rich markup: Text, since escape() doubles a trailing backslash ("c\\" for "c\")
    table = Table(title=Text(caption))
    for name, dtype in short.schema.items():
        table.add_column(Text(name), justify="right" if dtype.is_numeric() else "left")
    for r in cells:
        table.add_row(*map(Text, r))
    buf = io.StringIO()
    Console(file=buf, width=max(100, 12 * len(short.columns)), soft_wrap=False, no_color=True,
            highlight=False).print(table)
    return buf.getvalue() + "\n".join(_footer(settings, frame)) + "\n"


#: LaTeX's header of the p-value column (LaTeX, plain text), by the ``verdict_on`` column the verdicts followed.
_P_HEADER = {"pvalue": ("$p$", "p"), "pvalue_holm": ("$p$ (Holm)", "p (Holm)"), "pvalue_bh": ("$p$ (BH)", "p (BH)"),
             "pvalue_tukey": ("$p$ (Tukey)", "p (Tukey)")}


def _latex(frame: pl.DataFrame, short: pl.DataFrame, settings: dict[str, Any], caption: str, digits: int) -> str:
    r"""A booktabs ``tabular`` for a paper page: the key columns, ``n``, the delta with its interval below it
    (``\footnotesize``, as the results table's stacked layout), the p-value the verdicts follow
    (``verdict_on``), the verdict (and ``certified`` when drawn adaptively); against several baselines, each
    system's baseline is the small line below its name (``vs bm25``). The table rendering's 15 columns (the
    two means, the raw p, wins / losses / ties, MDE too) were twice an article's text width; a comment names
    the ones left out (csv and json hold them). Set in ``\small`` or ``\footnotesize`` (in a group, with 4 pt
    column padding) when it would not fit at the text size
    (:func:`~pairedframe.report.table_latex.tabular_font_size`); the title and settings are ``%`` comments.
    Rows computed differently (one-pass beside resampled) have a narrow ``CI`` column of letters, told apart by
    a legend below the tabular (``CI a: t interval, one-pass; ...``): the interval and method columns made an
    article's table about 30 pt too wide. The tabular and its legend (a paragraph as wide as the tabular) are
    stacked in a one-column tabular, one box, so that a ``\resizebox`` keeps the legend below the table."""
    keys = [c for c, t in short.schema.items() if c not in _SHORT and c not in _PER_ROW and not t.is_numeric()]
    codes, legend, legend_plain = _method_codes(short)
    versus = "baseline" in keys and "system" in keys          # several baselines: below each system's name
    keys = [k for k in keys if not (versus and k == "baseline")]
    extra = ["certified"] if "certified" in frame.columns and frame["certified"].is_not_null().any() else []
    verdict_on = frame["verdict_on"].unique(maintain_order=True).to_list() if "verdict_on" in frame.columns else []
    level = settings.get("confidence_level")
    ci = f"delta [{level * 100:g}% CI]" if isinstance(level, float) else "delta [CI]"
    names = [("system (vs baseline)" if versus and k == "system" else k) for k in keys]
    headers = [*((latex_escape(k), k) for k in names), *([("CI", "CI")] if codes else []), ("$n$", "n"),
               (latex_escape(ci), ci),
               _P_HEADER.get(verdict_on[0], ("$p$", "p")) if len(verdict_on) == 1 else ("$p$", "p"),
               ("verdict", "verdict"), *((c, c) for c in extra)]
    widths = [[text_width(plain)] for _, plain in headers]
    fixed = [0.0] * len(headers)                       # the second line keeps its \footnotesize
    rows = []
    lead = len(keys) + bool(codes)                     # the key columns and the CI letters
    p_column = lead + 2
    for i, row in enumerate(frame.iter_rows(named=True)):
        values = [*(row[k] for k in keys), *(codes[i:i + 1]), row["n_queries"], row["delta"],
                  row[row.get("verdict_on") or "pvalue"],
                  row["verdict"], *(row[c] for c in extra)]
        plain = [pvalue_text(v, digits) if j == p_column else _num(v, digits) for j, v in enumerate(values)]
        for column, text in zip(widths, plain):
            column.append(text_width(text))
        low, high = row["ci_low"], row["ci_high"]
        ends = [_end(v, digits) for v in (low, high)]
        second = {lead + 1: (interval_text(*ends), latex_interval(*ends))}     # [low, ∞) one-sided
        if versus:
            second[keys.index("system")] = (f"vs {row['baseline']}", f"vs {latex_escape(str(row['baseline']))}")
        for j, (text, _) in second.items():
            fixed[j] = max(fixed[j], FOOTNOTESIZE * text_width(text))
        first = [latex_pvalue(v, digits) if j == p_column else _text_cell(v, digits, "latex") for j, v in enumerate(values)]
        rows.append((plain, first, second))
    columns = [max(w) for w in widths]
    size = tabular_font_size(columns, 2 * len(rows), fixed=fixed)
    lines, pulled = [], 0.0
    for plain, first, second in rows:
        pull = stacked_pull(size, [(text, SMALL_LINE if j in second else "") for j, text in enumerate(plain)])
        pulled += pull
        lines.append(latex_row(first)[:-2] + stacked_row_end(pull))   # the small line sits closer
        lines.append(" & ".join(rf"{{\footnotesize {second[j][1]}}}" if j in second else "" for j in range(len(headers)))
                     + r" \\")
    # the legend's lines: it wraps at the tabular's width, in the tabular's size
    width = tabular_width(columns, size, fixed=fixed)
    legend_lines = math.ceil(1.03 * text_width(legend_plain) * _SIZE_SCALE[size] / width) if legend else 0
    _check_page(columns, fixed, size, len(rows), pulled, names, legend_lines=legend_lines)
    spec = "l" * lead + "rrr" + "l" * (1 + len(extra))
    left_out = [c for c in _SHORT if c in short.columns and c not in ("n_queries", "delta", "ci_low", "ci_high", "verdict",
                                                                        *verdict_on, *extra)]
    # the title as a comment, as the settings below: the tabular goes into the writer's own float
    return "\n".join([latex_comment(caption), r"\begingroup" + size + r"\setlength{\tabcolsep}{4pt}%",
                      *([_BOXED[0]] if legend else []),
                      rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(h for h, _ in headers) + r" \\",
                      r"\midrule", *lines, r"\bottomrule", r"\end{tabular}%",
                      *([_BOXED[1], _BOXED[2] + legend + _BOXED[3]] if legend else []), r"\endgroup",
                      *([f"% columns left out here (in -f csv / json): {', '.join(left_out)}"] if left_out else []),
                      *(latex_comment(line) for line in _footer({k: _PER_ROW_LATEX if v == _PER_ROW_TEXT else v
                                                                  for k, v in settings.items()}, frame))]) + "\n"


def _method_codes(short: pl.DataFrame) -> tuple[list[str], str, str]:
    """A letter per row for its (interval, method) when they differ between rows, and the legend naming each
    letter's interval and method, in LaTeX (escaped) and as plain text; ``([], "", "")`` when every row was
    computed alike."""
    per_row = [c for c in _PER_ROW if c in short.columns]
    if not per_row:
        return [], "", ""
    kinds = list(dict.fromkeys(short.select(per_row).iter_rows()))
    letters = [chr(ord("a") + i) if i < 26 else str(i + 1) for i in range(len(kinds))]
    code = dict(zip(kinds, letters))
    words = {"interval": "{} interval", "method": "{}"}
    parts = [f"{letter}: " + ", ".join(words[c].format(v) for c, v in zip(per_row, kind) if v is not None)
             for kind, letter in code.items()]
    plain = "CI " + "; ".join(parts) + "."
    return [code[kind] for kind in short.select(per_row).iter_rows()], latex_escape(plain), plain


#: ``\smallskip`` (pt) between the tabular and its CI legend.
_SMALLSKIP = 3.0

#: The tabular boxed, then stacked over its CI legend (a paragraph as wide as the tabular) in a one-column
#: tabular: one box in any wrapper, where ``\par`` (which did nothing in ``\resizebox``'s LR box) set the legend
#: beside the table.
_BOXED = (r"\ifdefined\pairedframetable\else\newsavebox{\pairedframetable}\fi\sbox{\pairedframetable}{%",
          r"}\begin{tabular}{@{}l@{}}\usebox{\pairedframetable}\\\noalign{\vskip\smallskipamount}%",
          r"\parbox{\wd\pairedframetable}{\raggedright ", r"}\end{tabular}%")

#: Each font size's scale of the text size.
_SIZE_SCALE = {size: scale for size, scale, _, _ in SIZES}


def _check_page(columns: list[float], fixed: list[float], size: str, n_rows: int, pulled: float,
                keys: list[str], *, legend_lines: int = 0) -> None:
    """Warn when the tabular of ``n_rows`` comparisons is too wide for an article's text width, or with a one-line
    caption too tall for its page (:mod:`~pairedframe.report.table_latex_page`, as the results table)."""
    width = tabular_width(columns, size, fixed=fixed)
    if width > ARTICLE_TEXT_WIDTH:
        names = tabular_width(columns[:len(keys)], size, fixed=fixed[:len(keys)])
        warn_too_wide(width, size, f": its name columns ({', '.join(keys)}) take {names:.0f} pt",
                      "shorten the longest names (on the command line NAME=PATH names a run)")
    height = (caption_height(0.0) + tabular_height(1 + 2 * n_rows + legend_lines, size, pulled=pulled)
              + _SMALLSKIP * bool(legend_lines))
    if height > ARTICLE_TEXT_HEIGHT:
        warn_too_tall(height, size, f" with a one-line caption: its {n_rows} comparisons take {2 * n_rows} lines",
                      "compare fewer systems or measures per table (e.g. one table per measure) or make it a longtable "
                      "(\\usepackage{longtable}), which breaks across pages")
