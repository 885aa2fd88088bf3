"""What a header line found where TREC text was expected means, as the tail of the reader's error."""

from __future__ import annotations

import os
import re

from pairedframe.io.grades import NUMBER
from pairedframe.tables import COLUMN_ALIASES, OTHER_MEANING

#: The columns a table of each kind needs (a run's system may come from its file name).
_NEEDED = {"run": ("qid", "docno", "score"), "qrels": ("qid", "docno", "rel")}

# trec_eval splits fields on C's isspace(): space, tab, CR, vertical tab, form feed (and newline).
_BLANKS = r"[ \t\r\x0b\x0c]+"


def _field_count(line: str) -> int:
    """Fields of a stripped line as trec_eval counts them (not str.split, which splits on Unicode spaces too)."""
    return len(re.split(_BLANKS, line)) if line else 0


def header_hint(line: str, what: str) -> str:
    """The hint for a first line naming columns (``qid ... docno ...``) in a file read as TREC ``what`` text.

    Without tabs or commas it is a space-separated table (``df.to_csv("run.tsv", sep=" ")``): the table
    readers split .csv on commas and .tsv on tabs, so it came here, and "pass the table file" would be no
    help."""
    if "\t" not in line and "," not in line:
        return (f"; it looks like the header line of a space-separated table (as pandas' to_csv(sep=' ') writes), "
                f"but TREC {what} files have no header and .csv / .tsv tables are read comma- / tab-separated: "
                "remove the header line to read the rest as TREC text, or write the table with commas (.csv) or "
                "tabs (.tsv)")
    return (f"; it looks like a table's header, not TREC text: pass the table file to pf.evaluate / the CLI, "
            f"which read .csv / .tsv / .parquet {what} tables")


SWAPPED_HINT = ("are the arguments swapped? On the command line QRELS comes first, then RUN (as in trec_eval); "
                "in Python pf.evaluate(run, qrels) takes the run first")


def _other_names(need: tuple[str, ...]) -> str:
    """``qid: query_id; docno: doc_id, doc; ...``: the aliases a table's columns are read under."""
    names = {ours: [a for a, o in COLUMN_ALIASES.items() if o == ours and a not in OTHER_MEANING] for ours in need}
    return "; ".join(f"{ours}: {', '.join(aliases)}" for ours, aliases in names.items() if aliases)


def _table_file(path: str | os.PathLike[str] | None) -> str | None:
    """``"CSV"`` / ``"TSV"`` for a file named ``*.csv`` / ``*.tsv`` (compressed too), else None."""
    if path is None:
        return None
    name = os.fspath(path).lower().removesuffix(".gz").removesuffix(".zst")
    return next((ext.upper() for ext in ("csv", "tsv") if name.endswith("." + ext)), None)


def _table_hint(line: str, what: str, path: str | os.PathLike[str] | None) -> str | None:
    """A delimited header naming no column we know (``topic,doc,grade``), or any first line of a .csv / .tsv
    file read as TREC text: which columns the table has and which it needs."""
    sep = "\t" if "\t" in line else "," if "," in line else None
    need = _NEEDED.get(what)
    if sep is None or need is None:
        return None
    names = [f.strip().strip('"') for f in line.split(sep)]
    header = len(names) > 1 and not any(re.fullmatch(NUMBER, n) for n in names)
    kind = _table_file(path) or ("TSV" if sep == "\t" else "CSV")
    if header:
        have = {COLUMN_ALIASES.get(n.lower(), n.lower()) for n in names}
        missing = [c for c in need if c not in have]
        return (f"; it looks like the header row of a {kind} table, naming the columns {names}, but a {what} table "
                f"needs the columns {', '.join(need)} (also read under other names: {_other_names(need)}) and it "
                f"lacks {missing}: rename those columns")
    if _table_file(path):
        return (f"; a {kind} {what} table needs a header row naming its columns {', '.join(need)} (also read under "
                f"other names: {_other_names(need)}), and this line is data, not a header")
    return None


#: trec_eval's output line, printf("%-22s\t%s\t%s"): the measure padded to 22 characters, the query, the value.
_TREC_EVAL_LINE = re.compile(r"([A-Za-z]\S* *)\t(\S+)\t(\S*)")


def _trec_eval_output_hint(line: str, what: str) -> str | None:
    """The hint for a line of trec_eval's output given as a run or qrels (a file of three tab-separated ids
    pads no first field to 22 characters, so it is not taken for one)."""
    found = _TREC_EVAL_LINE.fullmatch(line.rstrip("\r\n"))
    if found is None or len(found[1]) < 22:
        return None
    return (f"; this looks like trec_eval's output, not a {what} file: measure {found[1].strip()!r}, query "
            f"{found[2]!r}, value {found[3]!r}; give the {what} file trec_eval read, or read trec_eval -q output "
            "as per-query results (pf.read_results; pairedframe compare A.q B.q -m map compares its values)")


def line_hint(line: str, what: str, path: str | os.PathLike[str] | None = None) -> str:
    """What a line that is not a TREC ``what`` line looks like, as the tail of an error message; ``path``,
    the file's name, tells a .csv / .tsv file read as TREC text (its header names no column known)."""
    n = _field_count(line)
    fields = re.split(_BLANKS, line)
    if len(line.split("\t")) == 2 and n > 2:  # qid<TAB>free text: a topics file (its text has any number of words)
        return f"; it has 2 tab-separated columns (qid, text), like a topics / queries file, not a TREC {what} file"
    if n == 2:
        return f"; it has 2 fields, like a topics / queries file (qid, text), not a TREC {what} file"
    if line[:1] in ("{", "["):
        return "; it looks like JSON, not TREC text"
    if line[:1] == "<":
        return "; it looks like XML or HTML, not TREC text"
    trec_eval_output = _trec_eval_output_hint(line, what) if n == 3 else None
    if trec_eval_output is not None:
        return trec_eval_output
    if {"qid", "docno"} <= {f.strip().lower() for f in re.split(r"[,\t ]+", line)}:  # a header, however separated
        return header_hint(line, what)
    table = _table_hint(line, what, path) if n < 4 else None
    if table is not None:
        return table
    if "," in line and n < 4:
        return (f"; it looks like CSV (comma-separated), not TREC text (fields separated by blanks): pass a .csv "
                f"file to pf.evaluate / the CLI, which read .csv / .tsv / .parquet {what} tables")
    if what == "run" and n == 4 and re.fullmatch(NUMBER, fields[3]):
        return f"; it looks like a qrels line (qid iter docno rel): {SWAPPED_HINT}"
    if what == "qrels" and n >= 6 and re.fullmatch(NUMBER, fields[3]) and re.fullmatch(NUMBER, fields[4]):
        return f"; it looks like a run line (qid Q0 docno rank score tag): {SWAPPED_HINT}"
    return ""
