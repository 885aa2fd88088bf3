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
from typing import NamedTuple

import polars as pl

from pairedframe.errors import DUPLICATE_RULE, DuplicateError

__all__ = ["run_duplicate_error", "MAX_TAGS_NAMED", "field_counts", "ragged_cause", "Shift"]

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


class Shift(NamedTuple):
    """A repeated line whose fields read shifted by a blank inside an id (:func:`ragged_cause`)."""

    line: int
    fields: int
    usual: int
    q0: str
    inside: str  # "qid" or "docno"
    tag_read: str = ""  # the run tag the readers take from it (the docno case)


def ragged_cause(counts: Mapping[tuple[int, str], int], lines: Sequence[int], texts: Sequence[str]) -> Shift | None:
    """The repeated line (of ``lines``, text ``texts``) that reads shifted by a blank inside an id, or None.

    Inside its qid: the line holds ``e`` more fields than most lines and the usual 2nd field (``Q0``) is
    its field ``2 + e`` instead of its 2nd. Inside its docno: its 2nd field is the usual one and it holds
    more fields than most (six-field) lines, the repeated lines' 6th fields (the run tags as read) differ
    but their last fields agree (the true tag, read as an extra column). None otherwise (extra trailing
    columns, which trec_eval accepts, shift nothing). ``counts`` from :func:`field_counts`; ties of the
    most common go to the fewer fields, then to the first 2nd field in sort order (any reader agrees)."""
    if not counts:
        return None
    by_n: Counter[int] = Counter()
    for (n, _), k in counts.items():
        by_n[n] += k
    usual = min(by_n, key=lambda n: (-by_n[n], n))
    q0 = min((second for n, second in counts if n == usual), key=lambda second: (-counts[(usual, second)], second))
    split = [re.findall(_FIELD, text) for text in texts]
    for line, fields in zip(lines, split):
        extra = len(fields) - usual
        if extra > 0 and usual > 1 and fields[1] != q0 and fields[1 + extra] == q0:
            return Shift(line, len(fields), usual, q0, "qid")
    if usual == 6 and all(len(fields) >= 6 for fields in split) and len({f[5] for f in split}) > 1 \
            and len({f[-1] for f in split}) == 1:
        for line, fields in zip(lines, split):
            if len(fields) > usual and fields[1] == q0:
                return Shift(line, len(fields), usual, q0, "docno", fields[5])
    return None


def run_duplicate_error(path: str, qid: str, docno: str, lines: Sequence[int], texts: Sequence[str], *,
                        tags: Sequence[str] = (), argument: str | None = None,
                        ragged: Shift | None = None) -> DuplicateError:
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
    ragged : Shift, optional
        From :func:`ragged_cause`, given when a repeated line reads shifted by a blank inside its qid or
        its docno.

    Returns
    -------
    DuplicateError
        When a repeated line reads shifted (``ragged``), a message naming it and the likely cause (a blank
        inside its qid or docno); when the repeated lines carry different run tags, a message saying the file holds several run tags (naming up to
        :data:`MAX_TAGS_NAMED`), that a run file is one system, and how to give them apart; otherwise
        trec_eval's refusal of a duplicate.
    """
    twin_tags = list(dict.fromkeys(fields[5] for fields in (text.split() for text in texts) if len(fields) >= 6))
    found = f"duplicate (qid, docno) = ({qid}, {docno}) in run, also on line(s) {list(lines[1:6])}"
    if ragged is not None and ragged.inside == "qid":  # shifted fields make the pair and the "run tags" wrong
        message = (f"likely a blank inside the qid of line {ragged.line} ({ragged.fields} fields where most lines "
                   f"have {ragged.usual}, {ragged.q0!r} its field {2 + ragged.fields - ragged.usual}): {found}; "
                   "remove the blank")
    elif ragged is not None:  # the docno: its lines' "run tags" are the fields after it
        message = (f"likely a blank inside the docno of line {ragged.line} ({ragged.fields} fields where most lines "
                   f"have {ragged.usual}; fields are split on blanks, so its run tag reads as {ragged.tag_read!r}): "
                   f"{found}; remove the blank")
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
