"""HTML of a results table that can share a page: its own element id, and CSS that styles nothing else.

great_tables writes the table inside ``<div id=...>`` with a ``<style>`` block, but some of its
selectors are not scoped to that id (``#id thead, tbody, tfoot, tr, td, th`` scopes only ``thead``;
`` tr`` none), so they restyle every table of the host page.  :func:`scope_css` prefixes every
selector with the table's id; :func:`new_table_id` gives each table a fresh id, so two tables on one
page never share one.
"""

from __future__ import annotations

import re
import uuid

__all__ = ["new_table_id", "check_table_id", "scope_css"]

_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_STYLE = re.compile(r"(<style>)(.*?)(</style>)", flags=re.S)
_RULE = re.compile(r"(\s*)([^{}]+?)\s*\{([^{}]*)\}")


def new_table_id() -> str:
    """A fresh element id, ``pf-table-`` and 12 random hex digits."""
    return f"pf-table-{uuid.uuid4().hex[:12]}"


def check_table_id(table_id: str) -> str:
    """``table_id`` when it is a valid HTML id and CSS identifier (a letter, then letters, digits,
    ``-`` or ``_``); ValueError naming ``table_id`` otherwise."""
    if not isinstance(table_id, str) or not _ID.fullmatch(table_id):
        raise ValueError(f"`table_id` must be a letter followed by letters, digits, '-' or '_', got {table_id!r}")
    return table_id


def _scope_selector(selector: str, table_id: str) -> str:
    selector = " ".join(selector.split())
    own = f"#{table_id}"
    if selector == own or selector.startswith(own + " ") or selector.startswith(own + ".") \
            or selector.startswith(own + ":"):
        return selector
    return f"{own} {selector}"


def _scope_rules(css: str, table_id: str) -> str:
    """Every rule's selectors scoped.  A statement before a rule (``@import ...;``, as great_tables
    writes for a web font) stays as it is; the rules inside an ``@media`` block are scoped one by one
    (the innermost braces are the rules), its prelude left alone."""
    def rule(match: re.Match) -> str:
        statements, _, prelude = match.group(2).rpartition(";")
        selectors = ", ".join(_scope_selector(s, table_id) for s in prelude.split(",") if s.strip())
        kept = f"{statements};\n" if statements else ""
        return f"{match.group(1)}{kept}{selectors} {{{match.group(3)}}}"
    return _RULE.sub(rule, css)


def scope_css(html: str, table_id: str) -> str:
    """``html`` with every selector of its ``<style>`` blocks prefixed by ``#table_id``.

    Parameters
    ----------
    html : str
        great_tables' ``as_raw_html()`` of a table whose id is ``table_id``.
    table_id : str

    Returns
    -------
    str
        The same HTML; ``thead, tbody`` -> ``#table_id thead, #table_id tbody``.
    """
    return _STYLE.sub(lambda m: m.group(1) + _scope_rules(m.group(2), table_id) + m.group(3), html)
