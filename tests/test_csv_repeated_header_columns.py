"""A CSV / TSV header that names a column twice is refused naming the file and the column: which of the two
holds the values is never guessed (polars read the first and renamed the second NAME_duplicated_0)."""

from __future__ import annotations

import pytest

import pairedframe as pf


@pytest.mark.parametrize("reader, text, column", [
    (pf.as_run, "qid,docno,score,score\n1,d1,1,2\n", "score"),
    (pf.as_qrels, "qid,docno,rel,rel\n1,d1,1,0\n", "rel"),
    (pf.read_results, "system,qid,measure,value,value\na,1,AP,0.5,1\n", "value"),
])
def test_a_column_named_twice_in_the_header_is_refused_naming_file_and_column(tmp_path, reader, text, column):
    path = tmp_path / "table.csv"
    path.write_text(text)
    with pytest.raises(pf.InputFormatError, match=f"{path}: the header names column '{column}' twice"):
        reader(str(path))
