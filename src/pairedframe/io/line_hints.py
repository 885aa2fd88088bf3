"""What a header line found where TREC text was expected means, as the tail of the reader's error."""

from __future__ import annotations


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
