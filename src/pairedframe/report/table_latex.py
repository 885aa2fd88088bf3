"""LaTeX of a results table for pdflatex in a plain ``article`` with ``\\usepackage{booktabs}``.

- Every character LaTeX treats specially (``& % _ # $ { } < > \\ ~ ^ |``, and the ligatures ``--``,
  ``''``, `````) is written so that it prints as itself in the default OT1 font encoding, where a
  bare ``|`` prints an em dash and ``<`` an inverted exclamation mark.
- booktabs rules and no vertical rule (booktabs leaves gaps around its rules that would cut one).
- Each measure is one right-aligned column; a number's significance marks follow it in a space as
  wide as the column's widest marks (``\\rlap`` plus ``\\hphantom``), so equal-decimal numbers stay
  aligned, every mark counts in the table's width instead of sticking out past the rules, and a
  stacked interval below a number shares that space.
- ``ci_layout="stacked"`` writes each interval on a second line in ``\\footnotesize`` below its
  number, with 4 pt column padding instead of 6 pt (local to the float), which keeps four measures
  with ``[low, high]`` intervals inside an article's text width, and 20 such systems on one page.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = ["latex_escape", "latex_number", "latex_row", "render_latex", "tabular_font_size", "text_width", "CI_LAYOUTS",
           "ARTICLE_TEXT_WIDTH", "FOOTNOTESIZE"]

CI_LAYOUTS = ("inline", "stacked")

_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%",
             "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
             ">": r"\textgreater{}", "|": r"\textbar{}", "`": r"\textasciigrave{}", '"': r'\texttt{"}',
             # OT1's roman fonts have no straight " (typewriter has); the captions' symbols for OT1:
             "α": r"$\alpha$", "±": r"$\pm$", "†": r"$\dagger$", "‡": r"$\ddagger$", "≥": r"$\geq$",
             "≤": r"$\leq$", "–": "--", "−": "$-$", "×": r"$\times$", "∞": r"$\infty$"}
#: Characters that join a repeat of themselves into a ligature (``--`` en dash, ``''`` a closing quote).
_LIGATURES = set("-',")


def latex_row(cells: list[str]) -> str:
    r"""One tabular row of escaped ``cells``, ended by ``\\``; a first cell that starts with ``*`` or ``[``
    gets an empty group before it, which the line above would otherwise read as ``\\*`` or as
    ``\\[...]`` / ``\midrule[...]``'s optional argument (a fatal "Missing number" for ``[x]run``)."""
    first = cells[0] if cells else ""
    if first.startswith(("*", "[")):
        cells = ["{}" + first, *cells[1:]]
    return " & ".join(cells) + r" \\"


def latex_escape(text: str) -> str:
    """``text`` with every LaTeX special character written to print as itself under pdflatex.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        ``a|b_c`` -> ``a\\textbar{}b\\_c``; ``a--b`` -> ``a-{}-b`` (no en dash ligature); the
        captions' symbols (α, ±, †, ‡, ≥, ≤, –, −, ×, ∞) in math mode or as their LaTeX spelling (``−∞`` ->
        ``$-\\infty$``: adjacent symbols share one math span). Composed first (Unicode NFC, the same
        text): pdflatex's utf8 input knows ``é`` but not ``e`` followed by a combining accent.
    """
    text = unicodedata.normalize("NFC", text)
    out: list[str] = []
    for i, ch in enumerate(text):
        piece = _SPECIALS.get(ch, ch)
        if piece.startswith("$") and out and out[-1].endswith("$") and out[-1] != r"\$":
            out[-1] = out[-1][:-1] + piece[1:]        # one math span: "−∞" is $-\infty$, never $-$$\infty$ ($$ is display math)
            continue
        out.append(piece)
        if ch in _LIGATURES and text[i + 1:i + 2] == ch:
            out.append("{}")
    return "".join(out)


#: A number's sign: a hyphen-minus at the start or after ``[``, ``(`` or a blank, before a digit, ``.`` or ``∞``
#: (never an exponent's, ``1.0e-05``).
_SIGN = re.compile(r"(?<![\w.\-])-(?=[\d.∞])")


def latex_number(text: str) -> str:
    """``text`` (a number, or an interval of numbers) escaped with every sign as a math minus:
    ``-0.018`` -> ``$-$0.018``, ``-∞`` -> ``$-\\infty$``; a text-mode hyphen would print shorter than
    the minus of ``$-\\infty$`` in the same column."""
    return latex_escape(_SIGN.sub("−", text))


def _number(number: str, place: int | None) -> str:
    body = latex_number(number)
    return rf"\textbf{{{body}}}" if place == 1 else rf"\underline{{{body}}}" if place == 2 else body


def _superscript(marks: str) -> str:
    """Marks as one math superscript: daggers as math symbols, letters upright (``a‡b`` ->
    ``$^{\\mathrm{a}\\ddagger\\mathrm{b}}$``; latex_escape's ``$\\ddagger$`` would end the math span)."""
    sup = "".join({"†": r"\dagger", "‡": r"\ddagger"}.get(piece) or rf"\mathrm{{{latex_escape(piece)}}}"
                  for piece in re.split("([†‡])", marks) if piece)
    return rf"$^{{{sup}}}$"


#: Widths of the lower-case letters in Computer Modern Roman (em), to find a column's widest marks.
_CMR_WIDTH = dict(zip("abcdefghijklmnopqrstuvwxyz", (
    .500, .556, .444, .556, .444, .306, .500, .556, .278, .306, .528, .278, .833, .556, .500, .556, .528, .392,
    .394, .389, .556, .528, .722, .528, .528, .444)))


#: Widths of the upper-case letters and the other characters of tables in Computer Modern Roman (em); any
#: other character counts .5 em. ``−`` is the math minus a number's sign is set in.
_CMR_OTHER = {**dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (
    .750, .708, .722, .764, .681, .653, .785, .750, .361, .514, .778, .625, .917, .750, .778, .681, .778, .736,
    .556, .722, .750, .750, 1.028, .750, .750, .611))), **dict.fromkeys("0123456789", .5),
    **dict.fromkeys(".,:;!'`", .278), **dict.fromkeys("[]", .278), **dict.fromkeys("()", .389), " ": .333, "-": .333,
    "−": .778, "+": .778, "=": .778, "@": .778, "%": .833, "#": .833, "&": .778, "_": .36, "∞": 1.0, "Δ": .833}
#: ``\textwidth`` of a plain 10 pt ``article`` (pt): the page the LaTeX renderings are checked on.
ARTICLE_TEXT_WIDTH = 345.0
#: The font sizes a float or tabular may be set in, with the width of their text relative to the 10 pt text
#: (measured by pdflatex: Computer Modern's 9 and 8 pt fonts are relatively wider than 10 pt's).
_SIZES = (("", 1.0), (r"\small", 0.925), (r"\footnotesize", 0.85))
#: Width of ``\footnotesize`` text relative to the same text at 10 pt (a stacked interval's line).
FOOTNOTESIZE = _SIZES[2][1]


def text_width(text: str) -> float:
    """The width (pt) pdflatex gives plain ``text`` in 10 pt Computer Modern Roman, estimated from the
    widths of its characters (a number's sign counts as the math minus :func:`latex_number` sets); for
    choosing a table's font size. Kerning (``Fa``, ``TA``) is not counted: up to 3 % wider than pdflatex's
    width, never more than 0.5 % narrower (tests/test_table_renderings.py measures it)."""
    text = _SIGN.sub("−", unicodedata.normalize("NFC", text))
    return 10 * sum(_CMR_WIDTH.get(ch) or _CMR_OTHER.get(ch, .5) for ch in text)


def tabular_font_size(column_widths: Sequence[float], body_lines: int, *, fixed: Sequence[float] = (),
                      tabcolsep: float = 4.0) -> str:
    """The font size command (``""``, ``\\small``, ``\\footnotesize``) for a ``tabular``.

    Parameters
    ----------
    column_widths : sequence of float
        Each column's widest cell at the text size (pt, :func:`text_width`).
    body_lines : int
        The table's lines of text: by the results table's rule for its float, they must fit the page.
    fixed : sequence of float, optional
        Each column's widest text that keeps its own size (a ``\\footnotesize`` interval line), in pt.
    tabcolsep : float
        The padding on either side of a column (pt).

    Returns
    -------
    str
        The largest size at which the table fits :data:`ARTICLE_TEXT_WIDTH` and its lines the page;
        ``\\footnotesize`` when it fits at none (names too long for any size: the writer's to shorten).
    """
    fixed = list(fixed) + [0.0] * (len(column_widths) - len(fixed))
    padding = 2 * tabcolsep * len(column_widths)

    def width(scale: float) -> float:
        return sum(max(w * scale, f) for w, f in zip(column_widths, fixed)) + padding
    by_width = next((size for size, scale in _SIZES if width(scale) <= ARTICLE_TEXT_WIDTH), _SIZES[-1][0])
    order = [size for size, _ in _SIZES]
    return max(by_width, _float_font_size(body_lines, ""), key=order.index)


def _widest(marks: Sequence[str]) -> str:
    """The marks of a column that print widest (letters by their Computer Modern widths)."""
    return max(marks, key=lambda m: sum(_CMR_WIDTH.get(ch, .6) for ch in m), default="")


def _with_marks(body: str, marks: str, widest: str) -> str:
    """``body`` followed by its marks in a space as wide as the column's widest marks: the numbers stay
    right-aligned on their last digit, and every mark lies inside the column (and the table's rules)."""
    if not widest:
        return body
    return body + (rf"\rlap{{{_superscript(marks)}}}" if marks else "") + rf"\hphantom{{{_superscript(widest)}}}"


def _interval(interval: str) -> str:
    """``[low, high]`` or ``± half`` escaped, with a thin space after the comma (narrower columns)."""
    return latex_number(interval.strip()).replace(", ", r",\,")


def _float_font_size(body_lines: int, caption: str) -> str:
    """``\\small`` or ``\\footnotesize`` for a float that would not fit an article's page at the text size
    (about 45 lines of 10 pt text; a caption line holds about 70 characters): 20 systems with stacked
    intervals under a caption of notes were 42 pt too tall and 3 pt too wide (20 TREC DL-2021 runs)."""
    lines = body_lines + 3 + len(caption) / 70
    return "" if lines <= 36 else r"\small" if lines <= 44 else r"\footnotesize"


def render_latex(labels: Sequence[str], measures: Sequence[str],
                 cells: Sequence[Sequence[tuple[str, str, str, int | None]]], caption: str, *,
                 label: str | None = None, ci_layout: str = "inline") -> str:
    """A ``table`` float: caption on top, then a booktabs ``tabular`` of one row per label.

    Parameters
    ----------
    labels : sequence of str
        Row names (plain text; escaped here).
    measures : sequence of str
        Column names (plain text; escaped here).
    cells : sequence of sequences of (number, interval, marks, place)
        ``cells[i][j]`` for row ``i``, measure ``j``: the number and interval as text (interval
        ``""`` when none), the marks (``"†"``, ``"‡"``, letters or ``""``) and the place (1 bold,
        2 underlined, None).
    caption : str
        Plain text; escaped here.
    label : str, optional
        ``\\label{label}`` after the caption (written as given: no blank and none of ``# % & { } \\ ~ $ ^``,
        which would break the label or the document).
    ci_layout : {"inline", "stacked"}, default "inline"
        Interval beside its number, or on a second line below it.

    Returns
    -------
    str
        ``\\begin{table}`` ... ``\\end{table}`` ending with a newline.

    Raises
    ------
    ValueError
        ``ci_layout`` not one of :data:`CI_LAYOUTS`; a ``label`` with a character LaTeX reads as markup.
    """
    if label is not None and re.search(r"[\s#%&{}\\~$^]", label):
        raise ValueError(f"`label` {label!r} holds a blank or one of # % & {{ }} \\ ~ $ ^, which LaTeX reads as "
                         "markup inside \\label{}: use letters, digits and : - _ . / (e.g. 'tab:main')")
    if ci_layout not in CI_LAYOUTS:
        raise ValueError(f"`ci_layout` must be one of {CI_LAYOUTS}, got {ci_layout!r}")
    stacked = ci_layout == "stacked" and any(cell[1] for row in cells for cell in row)
    widest = [_widest([row[j][2] for row in cells if row[j][2]]) for j in range(len(measures))]
    size = _float_font_size(len(labels) * (2 if stacked else 1), caption)
    lines = [r"\begin{table}[!t]", r"\centering", size, r"\setlength{\tabcolsep}{4pt}" if stacked else "",
             rf"\caption{{{latex_escape(caption)}}}" + (rf"\label{{{label}}}" if label else ""),
             r"\begin{tabular}{l" + "r" * len(measures) + "}", r"\toprule",
             " & ".join(["", *(latex_escape(m) for m in measures)]) + r" \\", r"\midrule"]
    for name, row in zip(labels, cells):
        if stacked:
            first = [_with_marks(_number(number, place), marks, w) for (number, _, marks, place), w in zip(row, widest)]
            second = [rf"{{\footnotesize {_interval(interval)}}}" for _, interval, _, _ in row]
            lines.append(latex_row([latex_escape(name), *first])[:-2] + r"\\[-2pt]")   # the small line sits closer
            lines.append(" & ".join(["", *second]) + r" \\")
        else:
            parts = [_with_marks(_number(number + interval, place), marks, w)
                     for (number, interval, marks, place), w in zip(row, widest)]
            lines.append(latex_row([latex_escape(name), *parts]))
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(line for line in lines if line) + "\n"
