"""LaTeX of a results table for pdflatex in a plain ``article`` with ``\\usepackage{booktabs}``.

- Every character LaTeX treats specially (``& % _ # $ { } < > \\ ~ ^ |``, the quotes ``'`` and `````, and
  the ligature ``--``) is written so that it prints as itself in the default OT1 font encoding, where a
  bare ``|`` prints an em dash, ``<`` an inverted exclamation mark and ``'`` a curly closing quote.
- booktabs rules and no vertical rule (booktabs leaves gaps around its rules that would cut one).
- Each measure is one right-aligned column; a number's significance marks follow it in a space as
  wide as the column's widest marks (``\\rlap`` plus ``\\hphantom``), so equal-decimal numbers stay
  aligned, every mark counts in the table's width instead of sticking out past the rules, and a
  stacked interval below a number shares that space.
- ``ci_layout="stacked"`` writes each interval on a second line in ``\\footnotesize`` below its
  number, with 4 pt column padding instead of 6 pt (local to the float), which keeps four measures
  with ``[low, high]`` intervals inside an article's text width, and 20 such systems on one page. The
  interval line is pulled 2 pt up towards its number, less where an underline or a name's descender
  would come closer than 1.5 pt to it (:func:`~pairedframe.report.table_latex_page.stacked_pull`).
- The float is set in ``\\small`` or ``\\footnotesize`` when its estimated width (:func:`text_width`) would
  not fit an article's text width at the text size, or its lines the page; when even ``\\footnotesize`` is
  too wide, long system names are cut into lines (:func:`wrap_name`: after ``_``, ``-``, a blank, ...) that
  go on the row's interval line and on lines of their own below it, and when the measures alone are too
  wide for the page a warning says so; so does one when the float's estimated height
  (:func:`~pairedframe.report.table_latex_page.tabular_height`) is taller than the page even in ``\\footnotesize``.
- A line break or other control character in a name, measure or caption is written as a blank; in a ``%``
  comment (``compare -f latex``, ``segments -f latex``) too (:func:`latex_comment`), so that it stays one line.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence

from pairedframe.report.table_latex_page import (ARTICLE_TEXT_HEIGHT, ARTICLE_TEXT_WIDTH, SIZES, SMALL_LINE, UNDERLINE,
                                                 caption_height, row_overhang, stacked_pull, stacked_row_end,
                                                 tabular_height, warn_too_tall, warn_too_wide)

__all__ = ["interval_text", "latex_comment", "latex_escape", "latex_interval", "latex_number", "latex_pvalue", "latex_row",
           "pvalue_text", "render_latex", "tabular_font_size", "tabular_width", "text_width", "wrap_name", "CI_LAYOUTS",
           "ARTICLE_TEXT_WIDTH", "FOOTNOTESIZE"]

CI_LAYOUTS = ("inline", "stacked")

_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%",
             "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
             ">": r"\textgreater{}", "|": r"\textbar{}", "`": r"\textasciigrave{}", '"': r'\texttt{"}',
             # a bare ' prints (and pdftotext reads) a curly quote: nDCG(dcg=’exp-log2’) for nDCG(dcg='exp-log2')
             "'": r"\textquotesingle{}",
             # OT1's roman fonts have no straight " (typewriter has); the captions' symbols for OT1:
             "α": r"$\alpha$", "±": r"$\pm$", "†": r"$\dagger$", "‡": r"$\ddagger$", "≥": r"$\geq$",
             "≤": r"$\leq$", "–": "--", "−": "$-$", "×": r"$\times$", "∞": r"$\infty$"}
#: Greek letters, which pdflatex's utf8 input refuses ("not set up for use with LaTeX"), as math symbols (as
#: unicode-math names them: U+03B5 is \varepsilon, U+03C6 \varphi); capitals that look like Latin ones as those.
_GREEK = {**dict(zip("αβγδεζηθικλμνξοπρςστυφχψωϑϕϵϱϖµ", (
    r"\alpha \beta \gamma \delta \varepsilon \zeta \eta \theta \iota \kappa \lambda \mu \nu \xi o \pi \rho "
    r"\varsigma \sigma \tau \upsilon \varphi \chi \psi \omega \vartheta \phi \epsilon \varrho \varpi \mu").split())),
    **dict(zip("ΓΔΘΛΞΠΣΥΦΨΩ", r"\Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Upsilon \Phi \Psi \Omega".split()))}
#: Other symbols a run name may hold that pdflatex refuses (° and → it takes from its text companion font;
#: math keeps ° as µ° and every symbol beside a Greek letter in one math span). {}^ never makes a double superscript.
_SYMBOLS = dict(zip("≠≈∼→←↔⇒′°·÷√∈∉⊂∪∩∀∃∂∇∑∏≡≪≫∝⊕⊗⋅", (
    r"\neq \approx \sim \rightarrow \leftarrow \leftrightarrow \Rightarrow {}^{\prime} {}^{\circ} \cdot \div \surd \in "
    r"\notin \subset \cup \cap \forall \exists \partial \nabla \sum \prod \equiv \ll \gg \propto \oplus "
    r"\otimes \cdot").split()))
_SPECIALS.update({ch: f"${cmd}$" for ch, cmd in {**_GREEK, **_SYMBOLS}.items()})
_SPECIALS.update(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΧ", "ABEZHIKMNOPTX"))
#: Letters with tonos or dialytika (ά, ΐ, Ώ) under math accents; a Latin look-alike (Ά, Ϊ) under text ones.
for _ch in map(chr, range(0x386, 0x3D0)):
    _base, *_marks = unicodedata.normalize("NFD", _ch)
    if _ch not in _SPECIALS and _marks and set(_marks) <= {"\u0301", "\u0308"} and _base in _SPECIALS:
        _math = {"\u0301": r"\acute", "\u0308": r"\ddot"}
        _SPECIALS[_ch] = ("$" + "".join(_math[m] + "{" for m in reversed(_marks)) + _GREEK[_base] + "}" * len(_marks) + "$"
                          if _base in _GREEK else "".join({"\u0301": "\\'{", "\u0308": '\\"{'}[m] for m in _marks)
                          + _SPECIALS[_base] + "}" * len(_marks))
del _ch, _base, _marks
#: Characters that join a repeat of themselves into a ligature (``--`` en dash, ``,,`` a low quote).
_LIGATURES = set("-,")


def latex_row(cells: list[str]) -> str:
    r"""One tabular row of escaped ``cells``, ended by ``\\``; a first cell that starts with ``*`` or ``[``
    gets an empty group before it, which the line above would otherwise read as ``\\*`` or as
    ``\\[...]`` / ``\midrule[...]``'s optional argument (a fatal "Missing number" for ``[x]run``)."""
    first = cells[0] if cells else ""
    if first.startswith(("*", "[")):
        cells = ["{}" + first, *cells[1:]]
    return " & ".join(cells) + r" \\"


#: Line breaks (those ``str.splitlines`` splits at; ``\r\n`` is one): in a name they would end a ``%`` comment
#: and put the rest of the name into the document, and pdflatex ends its input line at a carriage return.
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
#: Other control characters: pdflatex reads some as markup (``^^L`` is ``\\par``) or refuses them.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def latex_comment(text: str) -> str:
    """``text`` as one ``%`` comment line (``"% " + text``) with each line break a blank, so that a name
    holding one cannot end the comment and put the rest of its line into the document."""
    return "% " + _LINE_BREAK.sub(" ", text)


def latex_escape(text: str) -> str:
    """``text`` with every LaTeX special character written to print as itself under pdflatex.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        ``a|b_c`` -> ``a\\textbar{}b\\_c``; ``a--b`` -> ``a-{}-b`` (no en dash ligature); ``'`` ->
        ``\\textquotesingle{}`` and ````` -> ``\\textasciigrave{}``, the straight quote and the grave accent
        (bare, they print curly quotes); Greek letters (``β`` -> ``$\\beta$``; ``Α`` -> ``A``), the captions' symbols
        (±, †, ‡, ≥, ≤, –, −, ×, ∞) and others (≠, →, °, ...) in math mode or as their LaTeX spelling
        (``−∞`` -> ``$-\\infty$``: adjacent symbols share one math span). Composed first (Unicode NFC, the
        same text): pdflatex's utf8 input knows ``é`` but not ``e`` followed by a combining
        accent. A line break (``\\n``, ``\\r``, ``\\r\\n``, ...) or another control character is a blank, as a
        single newline is to LaTeX: pdflatex would end the line at a ``\\r`` and a blank line ends the
        paragraph, neither possible in a cell or a caption.
    """
    text = _CONTROL.sub(" ", _LINE_BREAK.sub(" ", unicodedata.normalize("NFC", text)))
    out: list[str] = []
    for i, ch in enumerate(text):
        piece = _SPECIALS.get(ch, ch)
        if piece.startswith("$") and out and out[-1].endswith("$") and out[-1] != r"\$":
            gap = " " if re.search(r"\\[A-Za-z]+\$$", out[-1]) and piece[1:2].isalpha() else ""   # \pi o, not \pio
            out[-1] = out[-1][:-1] + gap + piece[1:]  # one math span: "−∞" is $-\infty$, never $-$$\infty$ ($$ is display math)
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


def pvalue_text(p: float | None, digits: int = 4) -> str:
    """A p-value as ``compare -f latex`` and ``segments -f latex`` write it (plain text): ``digits`` decimals, and
    ``<0.0001`` (for 4) below what they show -- never 0, nor a scientific number beside fixed ones; ``nan`` as
    such, ``None`` as ``""``."""
    if p is None:
        return ""
    if math.isnan(p):
        return "nan"
    floor = 10.0 ** -digits
    return f"<{floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"


def interval_text(low: str, high: str) -> str:
    """An interval from its ends' texts (plain text, as every format writes them: an unbounded end is ``-∞`` or
    ``∞``): ``[low, high]``, half-open at an unbounded end -- ``[-0.0343, ∞)``, ``(-∞, 0.0795]``, as scipy's
    ``[low, inf)`` -- since a one-sided interval never holds infinity."""
    return ("(" if low == "-∞" else "[") + f"{low}, {high}" + (")" if high == "∞" else "]")


def latex_interval(low: str, high: str) -> str:
    """:func:`interval_text` escaped for LaTeX, with a thin space after its comma (``[$-$0.0343,\\,$\\infty$)``)."""
    return _interval(interval_text(low, high))


def latex_pvalue(p: float | None, digits: int = 4) -> str:
    """:func:`pvalue_text` escaped for LaTeX (``\\textless{}0.0001``)."""
    return latex_number(pvalue_text(p, digits))


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
    **dict.fromkeys(".,:;!'", .278), "`": .5, **dict.fromkeys("[]", .278), **dict.fromkeys("()", .389), " ": .333, "-": .333,
    "−": .778, "+": .778, "=": .778, "@": .778, "%": .833, "#": .833, "&": .778, "_": .36, "∞": 1.0, "Δ": .833,
    "<": .778, ">": .778, "|": .278}
#: The font sizes a float or tabular may be set in, with the width of their text relative to the 10 pt text.
_SIZES = tuple((size, scale) for size, scale, _, _ in SIZES)
#: Width of ``\footnotesize`` text relative to the same text at 10 pt (a stacked interval's line).
FOOTNOTESIZE = _SIZES[2][1]


def text_width(text: str) -> float:
    """The width (pt) pdflatex gives plain ``text`` in 10 pt Computer Modern Roman, estimated from the
    widths of its characters (a number's sign counts as the math minus :func:`latex_number` sets); for
    choosing a table's font size. Kerning (``Fa``, ``TA``) is not counted: up to 3 % wider than pdflatex's
    width, never more than 0.5 % narrower (tests/test_table_renderings.py measures it)."""
    text = _SIGN.sub("−", _CONTROL.sub(" ", _LINE_BREAK.sub(" ", unicodedata.normalize("NFC", text))))
    return 10 * sum(_CMR_WIDTH.get(ch) or _CMR_OTHER.get(ch, .5) for ch in text)


def tabular_width(column_widths: Sequence[float], size: str = "", *, fixed: Sequence[float] = (),
                  tabcolsep: float = 4.0) -> float:
    """The estimated width (pt) of a ``tabular`` whose columns' widest cells at the text size are
    ``column_widths`` (:func:`text_width`), set in ``size`` (``""``, ``\\small``, ``\\footnotesize``);
    ``fixed``: each column's widest text that keeps its own size; ``tabcolsep``: the padding on either side
    of a column (pt)."""
    scale = dict(_SIZES)[size]
    fixed = list(fixed) + [0.0] * (len(column_widths) - len(fixed))
    return sum(max(w * scale, f) for w, f in zip(column_widths, fixed)) + 2 * tabcolsep * len(column_widths)


def tabular_font_size(column_widths: Sequence[float], body_lines: int, *, fixed: Sequence[float] = (),
                      tabcolsep: float = 4.0, caption: str = "") -> str:
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
    caption : str, optional
        The float's caption (plain text), whose lines count in the page's.

    Returns
    -------
    str
        The largest size at which the table fits :data:`ARTICLE_TEXT_WIDTH` and its lines the page;
        ``\\footnotesize`` when it fits at none (see :func:`tabular_width` for how far off it is).
    """
    by_width = next((size for size, _ in _SIZES
                     if tabular_width(column_widths, size, fixed=fixed, tabcolsep=tabcolsep) <= ARTICLE_TEXT_WIDTH),
                    _SIZES[-1][0])
    order = [size for size, _ in _SIZES]
    return max(by_width, _float_font_size(body_lines, caption), key=order.index)


def _widest(marks: Sequence[str]) -> str:
    """The marks of a column that print widest (letters by their Computer Modern widths)."""
    return max(marks, key=lambda m: sum(_CMR_WIDTH.get(ch, .6) for ch in m), default="")


#: Bold digits (``\textbf``, Computer Modern Bold Extended) relative to the roman ones (pdflatex: 1.15).
_BOLD = 1.15


def _marks_width(marks: str) -> float:
    """The width (pt) of ``marks`` as a math superscript (7 pt letters, 0.458 em daggers, plus
    ``\\scriptspace``), counted at the text size so that it also holds after :data:`FOOTNOTESIZE`'s
    scaling: a superscript shrinks less (pdflatex: a dagger 4.17 pt at 10 pt, 3.94 pt in
    ``\\footnotesize``)."""
    if not marks:
        return 0.0
    em = sum(.458 if ch in "†‡" else _CMR_WIDTH.get(ch) or _CMR_OTHER.get(ch, .5) for ch in marks)
    return 1.12 * (0.5 + 8.1 * em)


#: Where a long name may break: after a blank or one of ``_ - / . , : ; + | )``.
_BREAK = re.compile(r"(?<=[ _\-/.,:;+|)])")


def wrap_name(name: str, room: float) -> list[str]:
    """``name`` cut into lines each at most ``room`` pt wide at the text size (:func:`text_width`).

    Parameters
    ----------
    name : str
        A system name (plain text).
    room : float
        The widest line (pt, 10 pt text).

    Returns
    -------
    list of str
        The lines, which joined (with the blank a line ended in) are the name: each breaks after a blank or one of
        ``_ - / . , : ; + | )`` (``bm25_rm3_`` / ``monot5-3b``), and a piece still wider than ``room``
        after any character. A blank at a break is dropped.
    """
    pieces: list[str] = []
    for piece in (p for p in _BREAK.split(unicodedata.normalize("NFC", name)) if p):
        pieces.extend(list(piece) if text_width(piece.rstrip()) > room else [piece])
    lines = [""]
    for piece in pieces:
        if lines[-1].strip() and text_width((lines[-1] + piece).rstrip()) > room:
            lines[-1] = lines[-1].rstrip(" ")
            lines.append(piece.lstrip(" "))
        else:
            lines[-1] += piece
    return [line for line in lines if line] or [""]


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
                 label: str | None = None, ci_layout: str = "inline", title: str | None = None) -> str:
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
    title : str, optional
        Plain text (escaped here): the caption starts with it in bold (a full stop added unless it ends in
        one of ``. ! ? :``) and a list of tables shows it alone (``\\caption[title]{...}``), as the other
        renderings show it above the table.

    Returns
    -------
    str
        ``\\begin{table}`` ... ``\\end{table}`` ending with a newline: in ``\\small`` or ``\\footnotesize``
        when the table would not fit an article's text width or page at the text size
        (:func:`tabular_font_size`), with the names cut into lines (:func:`wrap_name`) in the room the
        measures leave when even ``\\footnotesize`` is too wide.

    Raises
    ------
    ValueError
        ``ci_layout`` not one of :data:`CI_LAYOUTS`; a ``label`` with a character LaTeX reads as markup.

    Warns
    -----
    UserWarning
        The measure columns alone, in ``\\footnotesize``, leave the names less than 50 pt of an article's
        text width: the table is printed too wide (the warning says by how much); or the float is estimated
        taller than an article's text height (550 pt) even in ``\\footnotesize`` (by how much, how many lines,
        and what to do: fewer systems, ``ci_layout="inline"``, a longtable).
    """
    if label is not None and re.search(r"[\s#%&{}\\~$^]", label):
        raise ValueError(f"`label` {label!r} holds a blank or one of # % & {{ }} \\ ~ $ ^, which LaTeX reads as "
                         "markup inside \\label{}: use letters, digits and : - _ . / (e.g. 'tab:main')")
    if ci_layout not in CI_LAYOUTS:
        raise ValueError(f"`ci_layout` must be one of {CI_LAYOUTS}, got {ci_layout!r}")
    stacked = ci_layout == "stacked" and any(cell[1] for row in cells for cell in row)
    widest = [_widest([row[j][2] for row in cells if row[j][2]]) for j in range(len(measures))]
    tabcolsep = 4.0 if stacked else 6.0                 # LaTeX's default padding, 4 pt with stacked intervals
    widths, fixed = _column_widths(labels, measures, cells, widest, stacked)
    size = tabular_font_size(widths, len(labels) * (2 if stacked else 1), fixed=fixed, tabcolsep=tabcolsep,
                             caption=caption)
    names = [[name] for name in labels]
    if tabular_width(widths, size, fixed=fixed, tabcolsep=tabcolsep) > ARTICLE_TEXT_WIDTH:
        names = _wrapped(labels, widths, fixed, tabcolsep)
    body, saved = _body(names, cells, widest, size, stacked)
    heading = "" if not title else title + ("" if title.rstrip().endswith((".", "!", "?", ":")) else ".")
    height = (caption_height(text_width("Table 1: " + (heading + " " if heading else "") + caption))
              + tabular_height(1 + len(body), size, pulled=saved))
    if height > ARTICLE_TEXT_HEIGHT:
        warn_too_tall(height, size, f": its {len(labels)} systems take {len(body)} lines",
                      "show fewer systems per table (split it in two)" + (", put the intervals beside the numbers "
                      "(ci_layout='inline': one line a system)" if stacked else "") + " or make it a longtable "
                      "(\\usepackage{longtable}), which breaks across pages")
    lines = [r"\begin{table}[!t]", r"\centering", size, r"\setlength{\tabcolsep}{4pt}" if stacked else "",
             _caption(caption, heading, title) + (rf"\label{{{label}}}" if label else ""),
             r"\begin{tabular}{l" + "r" * len(measures) + "}", r"\toprule",
             " & ".join(["", *(latex_escape(m) for m in measures)]) + r" \\", r"\midrule", *body,
             r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(line for line in lines if line) + "\n"


def _caption(caption: str, heading: str, title: str | None) -> str:
    """``\\caption{caption}``, or with a title ``\\caption[title]{\\textbf{title.} caption}``: the title in bold
    first, and alone in a list of tables."""
    if not heading:
        return rf"\caption{{{latex_escape(caption)}}}"
    return rf"\caption[{{{latex_escape(title or '')}}}]{{\textbf{{{latex_escape(heading)}}} {latex_escape(caption)}}}"


def _body(names: Sequence[Sequence[str]], cells: Sequence[Sequence[tuple[str, str, str, int | None]]],
          widest: Sequence[str], size: str, stacked: bool) -> tuple[list[str], float]:
    """The tabular's rows, one line per name line, and how much shorter (pt) they are than their lines'
    ``\\baselineskip``: stacked interval lines pulled up towards their numbers (less below an underline or a
    name's descender: :func:`~pairedframe.report.table_latex_page.stacked_pull`), less what marks and underlines
    add (:func:`~pairedframe.report.table_latex_page.row_overhang`)."""
    lines, saved, has_marks = [], 0.0, any(widest)
    for name, row in zip(names, cells):
        if stacked:
            first = [_with_marks(_number(number, place), marks, w) for (number, _, marks, place), w in zip(row, widest)]
            second = [rf"{{\footnotesize {_interval(interval)}}}" for _, interval, _, _ in row]
            below = name[1] if len(name) > 1 else ""
            pull = stacked_pull(size, [(name[0], below), *((UNDERLINE if place == 2 else number, SMALL_LINE if interval
                                                            else "") for number, interval, _, place in row)])
            lines.append(latex_row([latex_escape(name[0]), *first])[:-2] + stacked_row_end(pull))
            lines.append(latex_row([latex_escape(below), *second]))
            underlined = "".join(number for number, _, _, place in row if place == 2)
            rest = name[2:]
        else:
            parts = [_with_marks(_number(number + interval, place), marks, w)
                     for (number, interval, marks, place), w in zip(row, widest)]
            lines.append(latex_row([latex_escape(name[0]), *parts]))
            pull, underlined = 0.0, "".join(number + interval for number, interval, _, place in row if place == 2)
            rest = name[1:]
        saved += pull - row_overhang(size, marks=has_marks, underlined=underlined)
        lines += [latex_row([latex_escape(more), *[""] * len(row)]) for more in rest]
    return lines, saved


def _column_widths(labels: Sequence[str], measures: Sequence[str],
                   cells: Sequence[Sequence[tuple[str, str, str, int | None]]], widest: Sequence[str],
                   stacked: bool) -> tuple[list[float], list[float]]:
    """Each column's widest cell at the text size (pt) and, stacked, each measure's widest interval line
    (``\\footnotesize``, which keeps its size, with a thin space after its comma): a bold number counts :data:`_BOLD` times its roman width, its
    marks' space the column's widest marks (:func:`_marks_width`)."""
    widths = [max((text_width(name) for name in labels), default=0.0)]
    fixed = [0.0]
    for j, measure in enumerate(measures):
        marks = _marks_width(widest[j])
        numbers = [text_width(row[j][0] if stacked else row[j][0] + row[j][1]) * (_BOLD if row[j][3] == 1 else 1)
                   for row in cells]
        widths.append(max([text_width(measure), *(w + marks for w in numbers)]))
        fixed.append(max((FOOTNOTESIZE * (text_width(row[j][1].strip()) - _THIN * row[j][1].count(", "))
                          for row in cells), default=0.0) if stacked else 0.0)
    return widths, fixed


#: How much narrower (pt at 10 pt) the thin space after a stacked interval's comma is than a blank.
_THIN = 10 * (.333 - 1 / 6)
#: The narrowest the name column is wrapped to (pt at the text size): about ten characters.
_MIN_NAME_ROOM = 50.0


def _wrapped(labels: Sequence[str], widths: Sequence[float], fixed: Sequence[float], tabcolsep: float) -> list[list[str]]:
    """Each label's lines (:func:`wrap_name`) in the room the measures leave an article's text width in
    ``\\footnotesize`` (1 % spare for the estimate); when they leave less than :data:`_MIN_NAME_ROOM`, the
    names are not cut up and a warning says how much too wide the table is (too many measures for a page)."""
    others = tabular_width(widths[1:], r"\footnotesize", fixed=fixed[1:], tabcolsep=tabcolsep)
    room = (0.99 * ARTICLE_TEXT_WIDTH - others - 2 * tabcolsep) / FOOTNOTESIZE
    if room < _MIN_NAME_ROOM:
        warn_too_wide(tabular_width(widths, r"\footnotesize", fixed=fixed, tabcolsep=tabcolsep), r"\footnotesize",
                      f" with its system names wrapped: its {len(widths) - 1} measure columns alone are {others:.0f} pt",
                      "show fewer measures per table" + ("" if any(fixed) else
                                                         " or put the intervals below the numbers (ci_layout='stacked')"))
        return [[name] for name in labels]
    return [wrap_name(name, room) for name in labels]
