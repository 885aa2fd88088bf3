"""No silent empties: the checks every public function runs before returning a result.

A result that would be empty, or all-null, for something the caller asked for (a system, a measure,
a segment, a judgment set, the queries two tables share) is an error, never an empty table; when
only part of it would be empty the function warns, naming that part. Three checks cover the cases:

- :func:`require_names`: names the caller chose (``systems=``, ``measures=``, a baseline) must match
  something; ``None`` means "all", an empty list is refused.
- :func:`require_rows`: a table the result is built from must have rows.
- :func:`require_each`: each requested item (system, (system, measure), segment, ...) must have a
  result; none -> :class:`~pairedframe.errors.EmptyResultError`, some ->
  :class:`~pairedframe.errors.PartlyEmptyWarning` pointing at the caller's line.

Messages say what is empty and why, and show a few of the names involved (:func:`sample`).
"""

from __future__ import annotations

import dataclasses
import numbers
import difflib
import unicodedata
import warnings
from collections.abc import Collection, Hashable, Iterable, Sequence
from typing import Any

import polars as pl

from pairedframe.errors import EmptyResultError, PartlyEmptyWarning, SchemaError, user_stacklevel

__all__ = ["check_system_name", "near_miss_hint", "near_miss_ids", "near_miss_kind", "require_bool", "require_bool_fields", "shown_ids", "shown_pair", "require_each", "require_names", "require_rows", "sample", "scalar_ids",
           "listed_ids", "string_ids", "warn_numeric_ids"]

#: How many names a message shows before "... (N in all)".
SHOWN = 5


def sample(values: Iterable[Any], k: int = SHOWN) -> str:
    """``['a', 'b', ...] (12 in all)``: the first ``k`` values, and the count when there are more."""
    values = list(values)
    shown = repr(values[:k]) if len(values) <= k else repr(values[:k])[:-1] + ", ...]"
    return shown if len(values) <= k else f"{shown} ({len(values)} in all)"


def warn_numeric_ids(columns: Sequence[str], what: str) -> None:
    """Warn that the numeric id ``columns`` of ``what`` (e.g. "the run table") are read as strings: ids are
    strings (``007`` stays ``007``), and a number has already lost its leading zeros, so such ids may not
    match the same ids spelled as strings elsewhere (a run file, qrels, a segment table)."""
    if columns:
        warnings.warn(f"numeric id column(s) {list(columns)} of {what} converted to strings: '007' became '7' "
                      "before pairedframe saw it (leading zeros may be lost, and such ids then miss '007' "
                      "elsewhere); read ids as strings to keep them", UserWarning, stacklevel=user_stacklevel())


def string_ids(frame: pl.DataFrame, columns: Sequence[str], what: str) -> pl.DataFrame:
    """``frame`` with its id ``columns`` (those present) as strings: text and categorical ids as they
    are, integer ids with :func:`warn_numeric_ids`'s warning; float ids are refused (``1.0`` never equals
    the id ``"1"`` of a file, and NaN is no id), as are booleans and dates/times (no id spells them) and a
    column with no value at all (dtype Null).

    Raises
    ------
    SchemaError
        A float, boolean, date/time or Null-typed id column (the message names the columns and ``what``).
    """
    present = [c for c in columns if c in frame.columns]
    floats = [f"{c} ({frame.schema[c]})" for c in present if frame.schema[c].is_float()]
    if floats:
        raise SchemaError(f"id column(s) {floats} of {what} hold floats: ids are strings ('007', 'd1'), and a float "
                          "such as 1.0 does not match the id '1' of another table (NaN is no id at all); read the "
                          "ids as strings, or cast whole-number ids to integers first")
    flags = [f"{c!r} ({frame.schema[c]})" for c in present if frame.schema[c] == pl.Boolean or frame.schema[c].is_temporal()]
    if flags:
        raise no_id_error(flags, what)
    empty = [c for c in present if frame.schema[c] == pl.Null]
    if empty:
        raise SchemaError(f"id column(s) {empty} of {what} hold no value (every value is null)")
    warn_numeric_ids([c for c in present if frame.schema[c].is_numeric()], what)
    return frame.with_columns(pl.col(c).cast(pl.String) for c in present if frame.schema[c] != pl.String)


def no_id_error(flags: Sequence[str], what: str) -> SchemaError:
    """The error of id columns (``flags``: ``'qid' (Boolean)``) holding booleans or dates/times."""
    return SchemaError(f"id column(s) {', '.join(flags)} of {what} hold booleans or dates/times: ids are strings "
                       "('007', 'd1'), and True or a timestamp spelled as text ('true', '2020-01-01 00:00:00') "
                       "matches no id of another table; give the ids themselves, as strings")


def scalar_ids(values: Sequence[Any], parameter: str) -> list[str]:
    """``values`` (ids given one by one: query ids, cluster ids) as strings; anything but a string or an integer
    is refused naming ``parameter``: None (``str(None)`` would make the id ``"None"``), a float (NaN the id
    ``"nan"``, 1.0 not the id ``"1"``), a bool (numpy's too), a missing value (pandas' NA)."""
    bad = next((v for v in values if not isinstance(v, str) and not (
        isinstance(v, numbers.Integral) and not isinstance(v, bool))), _NONE)   # numpy's bool is no Integral
    if bad is not _NONE:
        raise SchemaError(f"`{parameter}` holds {bad!r} ({type(bad).__name__}); ids are strings (or integers), "
                          "never None, NaN, another float, a bool or a missing value")
    return [str(v) for v in values]


_NONE = object()


def listed_ids(values: Any, parameter: str, what: str | None = None) -> list[str]:
    """Query ids given one by one (a list, a dict's keys, a Series' index) as strings, as an id column is
    read: None and floats refused (:func:`scalar_ids`), integers spelled out with :func:`warn_numeric_ids`'s
    warning on ``what`` (default: the argument); a lone string is one id, not its characters; a table
    (polars or pandas) gives its ``qid`` column (or its only column)."""
    columns = None if isinstance(values, str) else getattr(values, "columns", None)
    if columns is not None:
        names = [str(c) for c in columns]
        if "qid" not in names and len(names) != 1:
            raise SchemaError(f"`{parameter}` is a table with columns {names}: give its ids as a 'qid' column")
        column = values["qid" if "qid" in names else list(columns)[0]]
        values = column.to_list() if hasattr(column, "to_list") else list(column)
    values = [values] if isinstance(values, str) else list(values)
    ids = scalar_ids(values, parameter)
    warn_numeric_ids(["qid"] if any(not isinstance(v, str) for v in values) else [], what or f"`{parameter}`")
    return ids


def check_system_name(system: Any, parameter: str = "system") -> None:
    """A run's name given as ``system=``: None (not given) or a non-blank string, as ids are (an empty name
    would be a system no one can name in ``baseline=`` or ``systems=``)."""
    if system is not None and (not isinstance(system, str) or not system.strip()):
        raise ValueError(f"`{parameter}` must be a non-empty string naming the run, got {system!r}")


def require_bool(value: Any, parameter: str) -> bool:
    """``value`` as a bool: True / False (numpy's too); anything else -- ``"false"``, ``"no"``, 0, 1, None --
    is refused naming ``parameter``, since a truthy string would silently switch the option on."""
    if isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")):
        return bool(value)
    raise ValueError(f"{parameter} must be True or False, got {value!r}")


def require_bool_fields(record: Any) -> None:
    """Refuse a ``bool`` field of the dataclass ``record`` holding anything but True / False (numpy's is kept
    as Python's), naming the class and the field: ``Measure("AP", judged_only="false")`` was named
    ``AP(judged_only=True)``, a string being truthy. For the records' ``__post_init__``."""
    for f in dataclasses.fields(record):
        if f.type in ("bool", bool):
            value = require_bool(getattr(record, f.name), f"{type(record).__name__}.{f.name}")
            object.__setattr__(record, f.name, value)    # frozen records too


def check_rel_level(rel_level: Any) -> None:
    """Refuse a ``rel_level`` that is not an integer >= 0 (a bool is no level), naming ``rel_level``."""
    if not isinstance(rel_level, int) or isinstance(rel_level, bool) or rel_level < 0:
        raise ValueError(f"rel_level must be an integer >= 0 (negative grades mean unjudged and are never "
                         f"relevant), got {rel_level!r}")


def require_rows(rows: Any, *, what: str, why: str) -> None:
    """Raise EmptyResultError ``"{what} is empty: {why}"`` when ``rows`` (a table, or a row count) has no rows."""
    n = rows if isinstance(rows, int) else getattr(rows, "height", None)
    if n is None:
        n = len(rows)
    if n == 0:
        raise EmptyResultError(f"{what} is empty: {why}")


def require_names(requested: str | Sequence[str] | None, available: Sequence[str], *, what: str,
                  parameter: str, source: str = "the table") -> list[str]:
    """The names the caller chose, in order and without repeats; ``None`` selects all ``available``.

    Parameters
    ----------
    requested : str, sequence of str or None
        One name, several, or None (= every available name).
    available : sequence of str
        The names present (in order).
    what : str
        What a name names (``"system"``, ``"measure"``); used in messages.
    parameter : str
        The argument the names came from (``"systems"``), named in messages.
    source : str
        Where the names were looked for (``"the per-query table"``).

    Raises
    ------
    EmptyResultError
        ``source`` has no names at all, ``requested`` is an empty list, or a requested name matches
        nothing (the message lists the available names and close matches).
    """
    names = list(available) if requested is None else [requested] if isinstance(requested, str) else list(requested)
    if not available:
        raise EmptyResultError(f"{source} has no {what} (no rows), so `{parameter}` cannot select any")
    if not names:
        raise EmptyResultError(f"`{parameter}` is empty: it selects no {what}; pass None for all of {sample(available)}")
    names = list(dict.fromkeys(names))
    unknown = [n for n in names if n not in available]
    if unknown:
        text = [str(a) for a in available]
        close = {n: _close_names(str(n), text) for n in unknown}
        hint = "; ".join(f"{n!r}: did you mean {c}?" for n, c in close.items() if c)
        raise EmptyResultError(f"`{parameter}`: {what}(s) {sample(unknown)} match nothing in {source}; its "
                               f"{what}s: {sample(available, 10)}" + (f" ({hint})" if hint else ""))
    return names


def require_each(requested: Sequence[Hashable], present: Collection[Hashable], *, what: str, lacking: str,
                 consequence: str = "left out of the result", hint: str = "", plural: str | None = None
                 ) -> list[Hashable]:
    """The requested items that have a result, in order; raise when none has, warn when some lack one.

    Parameters
    ----------
    requested : sequence
        The items the caller asked for (systems, ``(system, measure)`` pairs, segments, ...).
    present : collection
        The items that have a (non-empty, non-null) result.
    what : str
        Singular noun for an item, e.g. ``"system"``.
    plural : str, optional
        Its plural (default ``what + "s"``).
    lacking : str
        What the empty ones have, e.g. ``"no judged query in common with the qrels"``.
    consequence : str
        What happens to the empty ones when others remain (in the warning).
    hint : str
        Appended to both messages (what to check or pass instead).

    Raises
    ------
    EmptyResultError
        No requested item is present (also when ``requested`` is empty).

    Warns
    -----
    PartlyEmptyWarning
        Some, not all, requested items are absent; the warning points at the caller's line.
    """
    present = set(present)
    kept = [r for r in requested if r in present]
    absent = [r for r in requested if r not in present]
    tail = f"; {hint}" if hint else ""
    if not kept:
        if not absent:
            raise EmptyResultError(f"there is no {what} at all{tail}")
        subject = f"the {what} {absent[0]!r} has" if len(absent) == 1 else f"every {what} {sample(absent)} has"
        raise EmptyResultError(f"{subject} {lacking}{tail}")
    if absent:
        warnings.warn(PartlyEmptyWarning(
            f"{len(absent)} of {len(requested)} {plural or what + 's'} have {lacking}, {consequence}: {sample(absent)}{tail}"),
            stacklevel=user_stacklevel())
    return kept


def _close_names(name: str, available: list[str]) -> list[str]:
    """Likely meant names: a case-insensitive equal one, else up to three that contain ``name`` (e.g.
    ``bm25`` -> ``bm25base_p``, ``UNH_bm25``), then difflib's closest spellings."""
    low = name.lower()
    same = [a for a in available if a.lower() == low]
    if same:
        return same
    within = sorted((a for a in available if low in a.lower()), key=lambda a: (not a.lower().startswith(low), len(a)))
    return list(dict.fromkeys(within[:3] + difflib.get_close_matches(name, available, n=2)))[:3]


def _id_key(qid: str) -> str:
    """An id with case, surrounding blanks, leading zeros and Unicode normalisation ignored: how two
    spellings of one id usually differ ('0301' / '301', 'Q5' / 'q5', 'é' composed / 'e' + accent)."""
    return unicodedata.normalize("NFC", qid).strip().lower().lstrip("0") or "0"


def near_miss_ids(ids: Iterable[str], known: Iterable[str]) -> list[tuple[str, str]]:
    """(id, known id) pairs of the ``ids`` not in ``known`` that equal a known id but for leading zeros,
    case, surrounding blanks or Unicode normalisation (``'1'`` ~ ``'001'``), in the order of ``ids``.
    Only the ids not in ``known`` are normalised."""
    known = list(known)
    present = set(known)
    missing = [i for i in dict.fromkeys(ids) if i not in present]
    if not missing:
        return []
    keys = {_id_key(k): k for k in known}
    return [(i, keys[_id_key(i)]) for i in missing if _id_key(i) in keys]


def _same_text(a: str, b: str) -> bool:
    return unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def near_miss_kind(pairs: Iterable[tuple[str, str]], usual: str = "leading zeros, case or blanks") -> str:
    """How the ids of ``pairs`` differ, as a message says it: only in Unicode normalisation (the same
    text in other code points, which looks identical when printed), or in the ``usual`` ways."""
    same = [_same_text(a, b) for a, b in pairs]
    if same and all(same):
        return "except for Unicode normalisation, i.e. the same text in other code points (NFC / NFD)"
    return f"except for {usual}" + (" (or Unicode normalisation)" if any(same) else "")


def quoted(value: object) -> str:
    """``value`` as written between single quotes, for a name in a message (``system 'bm25'``): never its
    ``repr``, which doubles a backslash (``'<i>x<\\\\i>'`` for the run of ``input.<i>x<\\i>.gz``) and
    switches to double quotes around a ``'``."""
    return f"'{value}'"


def shown_ids(a: str, b: str) -> tuple[str, str]:
    """``repr`` of two ids; ids that differ only in Unicode normalisation are shown with their code points
    escaped (``'caf\\xe9'``, ``'cafe\\u0301'``), since printed they look the same."""
    if a != b and _same_text(a, b):
        return ascii(a), ascii(b)
    return repr(a), repr(b)


def shown_pair(a: str, b: str) -> str:
    """``'a' ~ 'b'``, spelled by :func:`shown_ids`."""
    return " ~ ".join(shown_ids(a, b))


def near_miss_hint(ids: Iterable[str], known: Iterable[str], *, of: str, in_: str) -> str:
    """``''``, or a sentence (starting ``"; "``) saying that ids ``of`` one table missing from ``in_``
    another match its ids except for leading zeros, case, blanks or Unicode normalisation, with a few
    examples: ids are strings."""
    near = near_miss_ids(ids, known)
    if not near:
        return ""
    pairs = ", ".join(shown_pair(a, b) for a, b in near[:3])
    return (f"; {len(near)} query id(s) of {of} match ids of {in_} {near_miss_kind(near)} "
            f"({pairs}{', ...' if len(near) > 3 else ''}): ids are compared as strings ('007' is not '7'), so "
            "rewrite the ids of one to match the other")
