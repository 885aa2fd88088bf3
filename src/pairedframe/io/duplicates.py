"""The error for a (qid, docno) that repeats in a run file, shared by every reader of run files.

A run file is read as one system (named after the file, by ``NAME=PATH`` on the command line or by
a name in Python).  A file holding several systems (lines with different run tags, the 6th field)
then repeats (qid, docno) pairs across its systems, and "duplicate (qid, docno)" alone hides why:
the message says which tags the file holds and how to give its systems apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import polars as pl

from pairedframe.errors import DUPLICATE_RULE, DuplicateError

__all__ = ["run_duplicate_error", "MAX_TAGS_NAMED", "ragged_cause"]

# trec_eval splits fields on C's isspace(): space, tab, CR, vertical tab, form feed (and newline).
_FIELD = r"[^ \t\r\n\x0b\x0c]+"

#: Run tags a message names before "and N more".
MAX_TAGS_NAMED = 4


def ragged_cause(frames: Iterable[pl.DataFrame], texts: Sequence[str]) -> tuple[int, int, int, int] | None:
    """``(first line, its fields, line, its fields)`` when one of the repeated lines ``texts`` holds another
    number of fields than the file's first data line: the first data line whose count differs, in ``frames``
    of ``line_no, line`` (stripped data lines in file order, read lazily: the search stops once decided);
    None otherwise."""
    first = None
    for frame in frames:
        counted = frame.select("line_no", pl.col("line").str.count_matches(_FIELD).alias("n"))
        if counted.height == 0:
            continue
        if first is None:
            first = counted.row(0)
            if all(len(re.findall(_FIELD, text)) == first[1] for text in texts):
                return None
        other = counted.filter(pl.col("n") != first[1]).head(1)
        if other.height:
            return (*first, *other.row(0))
    return None


def run_duplicate_error(path: str, qid: str, docno: str, lines: Sequence[int], texts: Sequence[str], *,
                        tags: Sequence[str] = (), argument: str | None = None,
                        ragged: tuple[int, int, int, int] | None = None) -> DuplicateError:
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
    ragged : tuple of int, optional
        ``(first line, its fields, line, its fields)`` from :func:`ragged_cause`, given when a repeated line
        holds another number of fields than the file's first line.

    Returns
    -------
    DuplicateError
        When lines hold different numbers of fields (``ragged``), a message naming the first such line as
        the likely cause (a blank inside an id shifts the fields after it); when the repeated lines carry
        different run tags, a message saying the file holds several run tags (naming up to
        :data:`MAX_TAGS_NAMED`), that a run file is one system, and how to give them apart; otherwise
        trec_eval's refusal of a duplicate.
    """
    twin_tags = list(dict.fromkeys(fields[5] for fields in (text.split() for text in texts) if len(fields) >= 6))
    found = f"duplicate (qid, docno) = ({qid}, {docno}) in run, also on line(s) {list(lines[1:6])}"
    if ragged is not None:  # shifted fields make both the pair and the "run tags" wrong: name the cause
        first, n_first, line, n_line = ragged
        message = (f"lines hold different numbers of fields: line {line} of {path} has {n_line} where line {first} "
                   f"has {n_first}, the likely cause (a blank inside a qid or docno shifts the fields after it) of: "
                   f"{found}; give every line the same six fields (qid Q0 docno rank score tag)")
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
