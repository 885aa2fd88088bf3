"""How a mapping given as runs is read: ``{name: path or table}``, ``{system: {qid: {docno: score}}}`` or one
run's ``{qid: {docno: score}}`` (:func:`pairedframe.io.convert.as_run`), and the errors about its keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pairedframe.errors import SchemaError

__all__ = ["run_mapping_layout", "refuse_blank_run_names", "system_names_runs_error", "system_over_systems_error",
           "refuse_several_systems"]


def run_mapping_layout(obj: Any) -> str | None:
    """How :func:`as_run` reads a mapping: ``"named"`` (``{name: path or table}``), ``"systems"``
    (``{system: {qid: {docno: score}}}``), ``"one run"`` (pytrec_eval's ``{qid: {docno: score}}``
    and other dicts of one run), or None for anything else than a non-empty mapping."""
    if not isinstance(obj, Mapping) or not obj:
        return None
    if all(not isinstance(v, (bytes, Mapping)) for v in obj.values()):
        return "named"
    if all(isinstance(v, Mapping) and v and all(isinstance(d, Mapping) for d in v.values()) for v in obj.values()):
        return "systems"
    return "one run"


def refuse_blank_run_names(obj: Mapping) -> None:
    """A mapping {system: run} whose key is None, empty or all blank names a system no one can name in
    ``baseline=`` (None was read as the system 'None'). Other keys are read as strings (``{1: path}``: '1')."""
    for key in obj:
        if key is None or (isinstance(key, str) and not key.strip()):
            said = "is None" if key is None else "is empty or made of blanks only"
            raise ValueError(f"`run`: a system name {said}: the mapping {{system: run}} has the key {key!r}; each key "
                             "must be a non-empty, non-blank string (the run's name in baseline= and systems=)")


def system_names_runs_error(obj: Mapping, system: str) -> str:
    """The message for ``system=`` given with a mapping whose keys name its runs (what was recognised)."""
    keys = ", ".join(repr(str(k)) for k in list(obj)[:3]) + (", ..." if len(obj) > 3 else "")
    if run_mapping_layout(obj) == "named":
        read = f"{{name: run file or table}}, its keys ({keys}) naming {len(obj)} run(s)"
    else:
        read = f"{{system: {{qid: {{docno: score}}}}}}, its keys ({keys}) naming {len(obj)} system(s)"
    return (f"system={system!r} names a single run, but the mapping was read as {read}; drop system= (the "
            "keys are the names), or pass one run's {qid: {docno: score}} dict with system=")


def system_over_systems_error(system: str, names: list, n_systems: int) -> str:
    """The message for ``system=`` given with a table whose own ``system`` column holds several systems
    (renaming them all would merge their rankings into one); ``names``: some of them, sorted."""
    shown = names[:5] + (["..."] if n_systems > 5 else [])
    return (f"system={system!r} names one run, but the table's system column holds {n_systems} systems {shown}: "
            "filter the table to one system, or omit system= (each system is then evaluated apart)")


def refuse_several_systems(frame: Any, system: str) -> None:
    """``system=`` renames one run; over a polars table of several systems it would merge their rankings
    (one ``n_unique`` of the column; the names are listed only when refusing)."""
    if frame["system"].n_unique() > 1:
        names = frame["system"].unique().drop_nulls().sort()  # a null beside one system: that system, renamed
        if names.len() > 1:
            raise SchemaError(system_over_systems_error(system, names.head(6).to_list(), names.len()))
