"""What a header line found where TREC text was expected means, as the tail of the reader's error."""

from __future__ import annotations

import re

from pairedframe.io.grades import NUMBER

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


def line_hint(line: str, what: str) -> str:
    """What a line that is not a TREC ``what`` line looks like, as the tail of an error message."""
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
    if {"qid", "docno"} <= {f.strip().lower() for f in re.split(r"[,\t ]+", line)}:  # a header, however separated
        return header_hint(line, what)
    if "," in line and n < 4:
        return (f"; it looks like CSV (comma-separated), not TREC text (fields separated by blanks): pass a .csv "
                f"file to pf.evaluate / the CLI, which read .csv / .tsv / .parquet {what} tables")
    if what == "run" and n == 4 and re.fullmatch(NUMBER, fields[3]):
        return f"; it looks like a qrels line (qid iter docno rel): {SWAPPED_HINT}"
    if what == "qrels" and n >= 6 and re.fullmatch(NUMBER, fields[3]) and re.fullmatch(NUMBER, fields[4]):
        return f"; it looks like a run line (qid Q0 docno rank score tag): {SWAPPED_HINT}"
    return ""
