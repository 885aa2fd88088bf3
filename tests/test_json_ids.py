"""Query ids a JSON results file holds as something else than strings, which polars reads without a trace: a
boolean beside text ids was read as the id 'true' (and beside integers as 1); a float's refusal showed it as
Python prints it (6e0 as 6.0) under pairedframe's column name (qid for the file's query_id); integers beside
text ids warned that '007' became '7', which JSON cannot have done."""

from __future__ import annotations

import json
import warnings

import pytest

import pairedframe as pf
from pairedframe.errors import SchemaError


def _write(tmp_path, suffix: str, ids: list, key: str = "query_id") -> str:
    rows = [{"system": "a", key: q, "measure": "AP", "value": 0.5} for q in ids]
    path = tmp_path / f"results.{suffix}"
    path.write_text(json.dumps(rows) if suffix == "json" else "".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.mark.parametrize("suffix", ["json", "ndjson"])
@pytest.mark.parametrize("flag", [True, False])
def test_a_json_boolean_among_text_query_ids_is_refused_naming_the_files_column(tmp_path, suffix, flag):
    path = _write(tmp_path, suffix, ["q1", flag, "q3"])
    with pytest.raises(SchemaError, match=rf"id column 'query_id' of \S+results\.{suffix} holds the JSON boolean "
                                          f"{json.dumps(flag)}: a flag is no id"):
        pf.read_results(path)


def test_a_json_boolean_among_integer_query_ids_is_refused_not_read_as_1(tmp_path):
    with pytest.raises(SchemaError, match=r"id column 'query_id' of \S+ holds the JSON boolean true"):
        pf.read_results(_write(tmp_path, "json", [2, True, 3]))


@pytest.mark.parametrize("suffix", ["json", "ndjson"])
def test_a_json_float_among_text_query_ids_is_refused_naming_the_files_column_and_spelling(tmp_path, suffix):
    path = _write(tmp_path, suffix, ["q1", "q2", "X"])
    with open(path) as fh:
        text = fh.read().replace('"X"', "6e0")
    with open(path, "w") as fh:
        fh.write(text)
    with pytest.raises(SchemaError, match=r"id column 'query_id' of \S+ holds a float, 6e0, beside text ids"):
        pf.read_results(path)


@pytest.mark.parametrize("suffix", ["json", "ndjson"])
def test_json_integers_among_text_query_ids_warn_in_words_true_of_json(tmp_path, suffix):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = pf.read_results(_write(tmp_path, suffix, ["q1", 7, "q3"]))
    said = [str(w.message) for w in caught if "numeric id" in str(w.message)]
    assert len(said) == 1 and table["qid"].to_list() == ["q1", "7", "q3"], said
    assert ("['query_id']" in said[0] and "hold JSON numbers beside text ids" in said[0]
            and "the number 7 beside the text 'q1'" in said[0] and "became" not in said[0]), said
    assert caught[0].filename == __file__
