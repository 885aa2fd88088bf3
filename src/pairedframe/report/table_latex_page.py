"""An article's page for the LaTeX tables (the results table, ``compare -f latex``, ``segments -f latex``): its
text width and height, the font sizes a table may take, a table's estimated height, and the warnings -- worded
alike for the three -- when a table is too wide or too tall for the page even in ``\\footnotesize``.

The page is a plain 10 pt ``article`` on letter paper (LaTeX's default): ``\\textwidth`` 345 pt, ``\\textheight``
550 pt. A ``tabular``'s rows are as tall as the ``\\baselineskip`` of the size it starts in (its strut); booktabs
sets its rules' widths and the space around them when it loads, at 10 pt, so they keep them at every size.
tests/test_latex_height.py checks the height estimate against the height pdflatex gives each table.
"""

from __future__ import annotations

import math
import warnings

from pairedframe.errors import user_stacklevel

__all__ = ["ARTICLE_TEXT_HEIGHT", "ARTICLE_TEXT_WIDTH", "SIZES", "caption_height", "row_overhang", "stacked_pull", "stacked_row_end", "tabular_height",
           "warn_too_tall", "warn_too_wide", "UNDERLINE", "SMALL_LINE"]

#: ``\textwidth`` of a plain 10 pt ``article`` (pt): the page the LaTeX renderings are checked on.
ARTICLE_TEXT_WIDTH = 345.0
#: ``\textheight`` of the same page (pt): a float taller than it is "too large for page".
ARTICLE_TEXT_HEIGHT = 550.0
#: The font sizes a float or tabular may be set in, with the width of their text relative to the 10 pt text
#: (measured by pdflatex: Computer Modern's 9 and 8 pt fonts are relatively wider than 10 pt's), their
#: ``\baselineskip`` (pt), the height of a tabular row, and their font size (pt).
SIZES = (("", 1.0, 12.0, 10.0), (r"\small", 0.925, 11.0, 9.0), (r"\footnotesize", 0.85, 9.5, 8.0))
_SCALE = {size: scale for size, scale, _, _ in SIZES}
_BASELINE = {size: skip for size, _, skip, _ in SIZES}
_POINTS = {size: points for size, _, _, points in SIZES}
#: booktabs' ``\toprule``, ``\midrule``, ``\bottomrule`` with the space they add (pt): rule widths .08 em and
#: .05 em, ``\aboverulesep`` .4 ex and ``\belowrulesep`` .65 ex of the 10 pt font.
_TOP_RULE, _MID_RULE, _BOTTOM_RULE = 0.8 + 2.795, 1.72 + 0.5 + 2.795, 1.72 + 0.8
#: A ``\caption``'s lines are ``\normalsize`` whatever the float's size (LaTeX's ``\@caption``): 12 pt apart, the
#: first after ``\abovecaptionskip`` (10 pt); with the first line's height and the last's depth (a parenthesis's
#: 7.5 and 2.5 pt at most) and the 1 pt ``\lineskip`` to the tabular, a caption of ``n`` lines adds 9 + 12 n pt.
_CAPTION_SKIP, _CAPTION_LINE = 9.0, 12.0


def tabular_height(lines: float, size: str, *, pulled: float = 0.0, midrules: int = 1) -> float:
    """The estimated height (pt) of a booktabs ``tabular`` of ``lines`` rows (the header's included) set in
    ``size`` (``""``, ``\\small``, ``\\footnotesize``), ``pulled`` pt closer together by ``\\\\[-Xpt]``, with a
    ``\\toprule``, ``midrules`` ``\\midrule`` and a ``\\bottomrule``."""
    return lines * _BASELINE[size] - pulled + _TOP_RULE + midrules * _MID_RULE + _BOTTOM_RULE


def caption_height(caption_width: float) -> float:
    """The estimated height (pt) a ``\\caption`` adds above a tabular in a ``table`` float, for a caption
    ``caption_width`` pt wide at the text size (``Table 1:`` included), which it keeps in a float of any size:
    its lines of an article's text width (3 % spare for the lines' breaks) and the skips around them."""
    return _CAPTION_SKIP + _CAPTION_LINE * max(1, math.ceil(1.03 * caption_width / ARTICLE_TEXT_WIDTH))


#: How far (pt) a stacked interval line is pulled up towards its number line (``\\[-2pt]``), when nothing in
#: the two lines comes closer than :data:`_CLEARANCE`: the small line then reads as its number's.
_MOST_PULL = 2.0
#: The least room (pt) left between what a number line's cell reaches below its baseline and what the cell
#: below it reaches above its own: a number's digits over its ``\footnotesize`` ``[low, high]`` with the
#: full pull in a ``\footnotesize`` table.
_CLEARANCE = 1.5
#: What reaches below a number line's baseline: ``\underline`` (its rule and the 0.4 pt below it, at every size).
UNDERLINE = "underline"
#: What reaches above a ``\footnotesize`` line's baseline: its brackets and parentheses, .75 em of 8 pt.
SMALL_LINE = "small line"
#: Characters reaching below the baseline in Computer Modern (parentheses and brackets .25 em, descenders .19 em).
_DESCENDING = frozenset("gjpqyQ,;()[]{}/|@$")


def _depth(text: str, size: str) -> float:
    """How far (pt) ``text`` (plain, or :data:`UNDERLINE`) set in ``size`` reaches below its baseline."""
    if text == UNDERLINE:
        return 2.0
    return 0.25 * _POINTS[size] if _DESCENDING & set(text) else 0.0


def _height(text: str, size: str) -> float:
    """How far (pt) ``text`` (plain, or :data:`SMALL_LINE`) set in ``size`` reaches above its baseline (a
    parenthesis's .75 em: letters with ascenders and capitals reach .68-.69 em)."""
    return 0.75 * (_POINTS[r"\footnotesize"] if text == SMALL_LINE else _POINTS[size]) if text.strip() else 0.0


#: How far a number's math superscript marks reach above its baseline, by size (pdflatex: a dagger, a double
#: dagger and letters alike), a little above the row's strut (.7 ``\baselineskip``).
_MARK_TOP = {"": 8.49, r"\small": 7.99, r"\footnotesize": 6.99}


def row_overhang(size: str, *, marks: bool, underlined: str = "") -> float:
    """How far (pt) a tabular row set in ``size`` reaches beyond its strut (.7 and .3 ``\\baselineskip``), which
    makes it taller: superscript ``marks`` above, the ``underlined`` text's (plain) underline below."""
    above = max(0.0, _MARK_TOP[size] - 0.7 * _BASELINE[size]) if marks else 0.0
    below = max(0.0, _depth(underlined, size) + 2.0 - 0.3 * _BASELINE[size]) if underlined else 0.0
    return above + below


def stacked_pull(size: str, cells: list[tuple[str, str]]) -> float:
    """How far (pt, 0 to 2) to pull a stacked second line up towards its first in a tabular set in ``size``.

    Parameters
    ----------
    size : str
        ``""``, ``\\small`` or ``\\footnotesize``.
    cells : list of (str, str)
        Per column, the first line's text (or :data:`UNDERLINE` for an underlined one) and the second line's
        (or :data:`SMALL_LINE` for a ``\\footnotesize`` one), plain; ``""`` for an empty cell.

    Returns
    -------
    float
        2 pt, or less as far as needed to keep :data:`_CLEARANCE` between each column's two cells: an underline,
        a descender or a parenthesis above a ``\\footnotesize`` interval or the next line of a name touched it in a
        ``\\footnotesize`` table (pdflatex: 0.5 pt overlap).
    """
    reach = max((_depth(above, size) + _height(below, size) for above, below in cells if above.strip() and below),
                default=0.0)
    return max(0.0, min(_MOST_PULL, math.floor(10 * (_BASELINE[size] - reach - _CLEARANCE)) / 10))


def stacked_row_end(pull: float) -> str:
    """The end of a stacked first line: ``\\\\[-2pt]`` for a 2 pt :func:`stacked_pull`, ``\\\\`` for none."""
    return rf"\\[-{pull:g}pt]" if pull > 0 else r"\\"


def _set_in(size: str) -> str:
    return {"": "at the text size", r"\footnotesize": "even in \\footnotesize"}.get(size, f"in {size}")


def warn_too_wide(width: float, size: str, detail: str, advice: str) -> None:
    """Warn (at the caller's line) that a table estimated ``width`` pt wide in ``size`` is wider than an article's
    text width; ``detail`` says what takes the room, ``advice`` what to do."""
    warnings.warn(f"the LaTeX table is about {width - ARTICLE_TEXT_WIDTH:.0f} pt wider than an article's text width "
                  f"({ARTICLE_TEXT_WIDTH:g} pt) {_set_in(size)}{detail}: {advice}",
                  UserWarning, stacklevel=user_stacklevel())


def warn_too_tall(height: float, size: str, detail: str, advice: str) -> None:
    """Warn (at the caller's line) that a table estimated ``height`` pt tall in ``size`` is taller than an
    article's text height (pdflatex: "Float too large for page"); ``detail`` says how many rows, ``advice`` what
    to do."""
    warnings.warn(f"the LaTeX table is about {height - ARTICLE_TEXT_HEIGHT:.0f} pt taller than an article's text "
                  f"height ({ARTICLE_TEXT_HEIGHT:g} pt) {_set_in(size)}{detail}: {advice}",
                  UserWarning, stacklevel=user_stacklevel())
