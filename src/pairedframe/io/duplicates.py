"""The error for a (qid, docno) that repeats in a run file, shared by every reader of run files.

A run file is read as one system (named after the file, by ``NAME=PATH`` on the command line or by
a name in Python).  A file holding several systems (lines with different run tags, the 6th field)
then repeats (qid, docno) pairs across its systems, and "duplicate (qid, docno)" alone hides why:
the message says which tags the file holds and how to give its systems apart.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from pairedframe.errors import DUPLICATE_RULE, DuplicateError

__all__ = ["run_duplicate_error", "MAX_TAGS_NAMED", "field_counts", "ragged_cause"]

# trec_eval splits fields on C's isspace(): space, tab, CR, vertical tab, form feed (and newline).
_FIELD = r"[^ \t\r\n\x0b\x0c]+"
_BLANKS = r"[ \t\r\n\x0b\x0c]+"

#: Run tags a message names before "and N more".
MAX_TAGS_NAMED = 4


def field_counts(frames: Iterable[pl.DataFrame]) -> Counter[tuple[int, str]]:
    """How many data lines hold each (number of fields, 2nd field), over ``frames`` of stripped data lines
    (a ``line`` column), for :func:`ragged_cause`."""
    counts: Counter[tuple[int, str]] = Counter()
    for frame in frames:
        counted = frame.select(pl.col("line").str.count_matches(_FIELD).alias("n"),
                               pl.col("line").str.extract(f"^{_FIELD}{_BLANKS}({_FIELD})").fill_null("").alias("f2"))
        for n, second, k in counted.group_by("n", "f2").len().iter_rows():
            counts[(n, second)] += k
    return counts


def ragged_cause(counts: Mapping[tuple[int, str], int], lines: Sequence[int], texts: Sequence[str]
                 ) -> tuple[int, int, int, str] | None:
    """``(line, its fields, the usual number of fields, the usual 2nd field)`` when a repeated line (of
    ``lines``, text ``texts``) reads shifted by a blank inside its qid: it holds ``e`` more fields than most
    lines and the usual 2nd field (``Q0``) is its field ``2 + e`` instead of its 2nd; None otherwise (extra
    trailing columns, which trec_eval accepts, shift nothing). ``counts`` from :func:`field_counts`; ties of the
    most common go to the fewer fields, then to the first 2nd field in sort order (any reader agrees)."""
    if not counts:
        return None
    by_n: Counter[int] = Counter()
    for (n, _), k in counts.items():
        by_n[n] += k
    usual = min(by_n, key=lambda n: (-by_n[n], n))
    q0 = min((second for n, second in counts if n == usual), key=lambda second: (-counts[(usual, second)], second))
    for line, text in zip(lines, texts):
        fields = re.findall(_FIELD, text)
        extra = len(fields) - usual
        if extra > 0 and usual > 1 and fields[1] != q0 and fields[1 + extra] == q0:
            return line, len(fields), usual, q0
    return None


def run_duplicate_error(path: str, qid: str, docno: str, lines: Sequence[int], texts: Sequence[str], *,
                        tags: Sequence[str] = (), argument: str | None = None,
                        ragged: tuple[int, int, int, str] | None = None) -> DuplicateError:
    """The DuplicateError of a (qid, docno) found on ``lines`` of run file ``path``.

    Parameters
    ----------
    path : str
        The run file.
    qid, docno : str
        The repeated pair.
    lines : sequence of int
        The 1-based lines holding it, ascending.
    texts : sequence of str
        Those lines' text (stripped), in the same order.
    tags : sequence of str, optional
        The run tags of the whole file, in order of appearance, when the caller has them; otherwise
        those of ``texts`` are named ("at least ...").
    argument : str, optional
        What the file was given as (``"run"``), for the message's prefix.
    ragged : tuple, optional
        ``(line, its fields, the usual number of fields, the usual 2nd field)`` from :func:`ragged_cause`,
        given when a repeated line reads shifted by a blank inside its qid.

    Returns
    -------
    DuplicateError
        When a repeated line reads shifted (``ragged``), a message naming it and the likely cause (a blank
        inside its qid); when the repeated lines carry different run tags, a message saying the file holds several run tags (naming up to
        :data:`MAX_TAGS_NAMED`), that a run file is one system, and how to give them apart; otherwise
        trec_eval's refusal of a duplicate.
    """
    twin_tags = list(dict.fromkeys(fields[5] for fields in (text.split() for text in texts) if len(fields) >= 6))
    found = f"duplicate (qid, docno) = ({qid}, {docno}) in run, also on line(s) {list(lines[1:6])}"
    if ragged is not None:  # shifted fields make both the pair and the "run tags" wrong: name the cause
        line, n_line, usual, q0 = ragged
        message = (f"likely a blank inside the qid of line {line} ({n_line} fields where most lines have "
                   f"{usual}, {q0!r} its field {2 + n_line - usual}): {found}; remove the blank")
    elif len(twin_tags) > 1:
        named = list(dict.fromkeys(tags)) or twin_tags
        listed = ("" if tags else "at least ") + ", ".join(map(repr, named[:MAX_TAGS_NAMED]))
        if len(named) > MAX_TAGS_NAMED:
            listed += f" and {len(named) - MAX_TAGS_NAMED} more"
        message = (f"the file holds several run tags ({listed}): several systems in one file, which is read as one "
                   "system (named after the file, by NAME=PATH or by a name in Python), so their rows collide: "
                   f"{found}; give each system its own file (e.g. awk '{{print > $6 \".run\"}}' FILE) or a table "
                   "with a system column (each system becomes one run)")
    else:
        message = f"{found}; {DUPLICATE_RULE}, remove them"
    return DuplicateError(message, path=path, line=lines[0] if lines else None, text=texts[0] if texts else None,
                          argument=argument)
