"""trec_eval's text output read as a per-query table: read_results, and every door that takes a results
path (pf.compare), on trec_eval's own expected outputs and on `pairedframe evaluate -q -f trec`."""

from __future__ import annotations

import subprocess
import sys
import warnings

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import EmptyResultError, InputFormatError
from pairedframe.measures import parse_measure

pytestmark = pytest.mark.shared_data


def _canonical(frame: pl.DataFrame) -> pl.DataFrame:
    names = {m: parse_measure(m)[0].name for m in frame["measure"].unique()}
    return frame.with_columns(pl.col("measure").replace_strict(names))


def test_trec_eval_q_output_against_evaluate(shared_data):
    """trec_eval's own out.test.aq (-q -m all_trec): every per-query number, 4 decimals as it prints them."""
    folder = shared_data / "trec_eval"
    read = pf.read_results(folder / "out.test.aq")
    assert set(read["qid"]) == {"301", "302", "303"} and read["system"].unique().to_list() == ["out.test.aq"]
    assert "runid" not in set(read["measure"]) and not read["measure"].str.starts_with("relstring").any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pf.evaluate(folder / "results.test", folder / "qrels.test", "all_trec").per_query
    joined = _canonical(read).join(ours.drop("system"), on=["qid", "measure"], how="left", suffix="_pf")
    assert joined["value_pf"].null_count() == 0 and joined.height == read.height > 250
    assert (joined["value"] - joined["value_pf"]).abs().max() <= 5e-5


def test_evaluate_trec_format_of_several_runs_reads_back_named_by_its_run_lines(shared_data, tmp_path):
    """`pairedframe evaluate -q -f trec` of two runs: a '# run:' line names each block; the summary lines
    and relstring's text values are left out; pf.compare takes the file as a results path."""
    folder = shared_data / "trec_eval"
    out = tmp_path / "two.eval"
    done = subprocess.run([sys.executable, "-m", "pairedframe", "evaluate", "-q", "-f", "trec", "-m", "map",
                           "-m", "ndcg_cut.10", "-m", "relstring", str(folder / "qrels.test"),
                           str(folder / "results.test"), str(folder / "results.trunc")],
                          capture_output=True, text=True, check=True)
    out.write_text(done.stdout)
    read = pf.read_results(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pf.evaluate([folder / "results.test", folder / "results.trunc"], folder / "qrels.test",
                           ["map", "ndcg_cut.10"]).per_query
    joined = _canonical(read).join(ours, on=["system", "qid", "measure"], how="full", suffix="_pf")
    assert joined.height == ours.height == read.height and joined["value"].null_count() == 0
    assert (joined["value"] - joined["value_pf"]).abs().max() <= 5e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_file = pf.compare(out, baseline="results.test", test="t")
        from_values = pf.compare(read, baseline="results.test", test="t")
    assert from_file.equals(from_values) and from_file.height == 2


def test_a_query_named_all_keeps_its_per_query_lines_and_only_the_trailing_ones_are_the_summary(tmp_path):
    path = tmp_path / "all.txt"
    path.write_text("runid                 \tall\tbm25\nmap                   \t1\t0.5000\nmap                   \tall\t0.2500\n"
                    "map                   \tq2\t0.0000\nmap                   \tall\t0.2500\nnum_q                 \tall\t3\n")
    read = pf.read_results(path)
    assert read.sort("qid").select("qid", "value").rows() == [("1", 0.5), ("all", 0.25), ("q2", 0.0)]


def test_trec_eval_output_without_per_query_lines_says_per_query_values_are_needed(shared_data):
    with pytest.raises(EmptyResultError, match=r"only summary rows.*trec_eval -q"):
        pf.read_results(shared_data / "trec_eval" / "out.test")


def test_a_malformed_trec_eval_output_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("map                   \t1\t0.5000\nmap                   \t2\tfifty\n")
    with pytest.raises(InputFormatError, match=r"bad\.txt.*line 2.*the value of map is not a number"):
        pf.read_results(path)
    path.write_text("map                   \t1\t0.5000\nmap 2 0.25\n")
    with pytest.raises(InputFormatError, match=r"line 2.*not a trec_eval output line"):
        pf.read_results(path)


def test_a_three_column_tsv_with_a_header_is_read_as_a_table_not_as_trec_eval_output(tmp_path):
    path = tmp_path / "bm25.tsv"
    path.write_text("qid\tmeasure\tvalue\n007\tAP\t0.5\n")
    assert pf.read_results(path).rows() == [("bm25", "007", "AP", 0.5)]


def test_a_zstd_compressed_trec_eval_output_reads_as_the_plain_file(shared_data, tmp_path):
    """Compression is told by the magic number, as by every TREC reader: zstd, and gzip under any name."""
    import gzip

    import pyarrow as pa  # the readers' zstd codec (zstandard is not a dependency)
    plain = shared_data / "trec_eval" / "out.test.aq"
    data = plain.read_bytes()
    (tmp_path / "zstd").mkdir()
    (tmp_path / "gzip").mkdir()
    zstd = tmp_path / "zstd" / "out.test.aq"      # same name, so the same system name
    zstd.write_bytes(pa.compress(data, codec="zstd", asbytes=True))
    gzipped = tmp_path / "gzip" / "out.test.aq"   # no .gz ending
    gzipped.write_bytes(gzip.compress(data))
    expected = pf.read_results(plain)
    assert pf.read_results(zstd).equals(expected) and pf.read_results(gzipped).equals(expected)


def test_a_zst_ending_leaves_the_system_name_as_a_gz_ending_does(shared_data, tmp_path):
    import gzip

    import pyarrow as pa
    data = (shared_data / "trec_eval" / "out.test.aq").read_bytes()
    (tmp_path / "out.test.aq.zst").write_bytes(pa.compress(data, codec="zstd", asbytes=True))
    (tmp_path / "out.test.aq.gz").write_bytes(gzip.compress(data))
    zst, gz = pf.read_results(tmp_path / "out.test.aq.zst"), pf.read_results(tmp_path / "out.test.aq.gz")
    assert zst.equals(gz)
    assert set(zst["system"]) == set(pf.read_results(shared_data / "trec_eval" / "out.test.aq")["system"])


def _trec_eval_block(runid: str | None, values: dict[str, float]) -> str:
    """One run's `trec_eval -q -m map` output, its runid line when ``runid`` is given (as `-m runid` prints it)."""
    lines = [f"map                   \t{qid}\t{value:.4f}" for qid, value in values.items()]
    if runid is not None:
        lines.append(f"runid                 \tall\t{runid}")
    lines.append(f"map                   \tall\t{sum(values.values()) / len(values):.4f}")
    return "\n".join(lines) + "\n"


def test_concatenated_trec_eval_outputs_read_as_one_run_each_named_by_runid(tmp_path):
    """`cat a.q b.q` of trec_eval outputs with runid lines: a repeated (measure, query) starts the next run."""
    path = tmp_path / "ab.q"
    path.write_text(_trec_eval_block("bm25", {"301": 0.5, "302": 0.25}) + _trec_eval_block("dense", {"301": 0.75,
                                                                                                     "302": 0.125}))
    read = pf.read_results(path).sort("system", "qid")
    assert read.select("system", "qid", "value").rows() == [("bm25", "301", 0.5), ("bm25", "302", 0.25),
                                                           ("dense", "301", 0.75), ("dense", "302", 0.125)]


@pytest.mark.parametrize("runids", [(None, None), ("same", "same"), ("bm25", None)],
                         ids=["no runid lines", "equal runids", "one runid missing"])
def test_concatenated_trec_eval_outputs_without_distinct_runids_refused_naming_the_line(tmp_path, runids):
    path = tmp_path / "ab.q"
    path.write_text(_trec_eval_block(runids[0], {"301": 0.5, "302": 0.25})
                    + _trec_eval_block(runids[1], {"301": 0.75, "302": 0.125}))
    first_block_lines = 3 + (runids[0] is not None)
    with pytest.raises(InputFormatError, match="several runs' trec_eval outputs") as info:
        pf.read_results(path)
    assert info.value.line == first_block_lines + 1 and info.value.argument == "results"
    assert "map for query 301 comes again (first on line 1)" in str(info.value)


def test_repeat_inside_a_named_run_block_refused_naming_run_and_line(tmp_path):
    path = tmp_path / "named.q"
    path.write_text("# run: bm25\n" + _trec_eval_block(None, {"301": 0.5}) + "map\t301\t0.25\n")
    with pytest.raises(InputFormatError, match="comes again \\(first on line 2\\) in run 'bm25'") as info:
        pf.read_results(path)
    assert info.value.line == 4


def test_query_named_all_and_the_summary_are_no_repeat(tmp_path):
    path = tmp_path / "all.q"
    path.write_text("map\t301\t0.5\nmap\tall\t0.25\nmap\tzeta\t0.75\nmap\tall\t0.5\n")
    read = pf.read_results(path)
    assert sorted(read["qid"].to_list()) == ["301", "all", "zeta"] and read["system"].unique().to_list() == ["all.q"]


def test_concatenated_outputs_split_at_the_summary_when_the_second_run_starts_with_a_new_query(tmp_path):
    """A run's summary ('all') lines end it: the next run's first query goes to the next run even when the
    first run lacks it (an outside tester's q0, credited to the wrong run when only repeats split)."""
    path = tmp_path / "ab.q"
    path.write_text(_trec_eval_block("A", {"q1": 0.1, "q2": 0.2}) + _trec_eval_block("B", {"q0": 0.5, "q1": 0.6,
                                                                                          "q2": 0.7}))
    read = pf.read_results(path).sort("system", "qid")
    assert read.select("system", "qid", "value").rows() == [("A", "q1", 0.1), ("A", "q2", 0.2), ("B", "q0", 0.5),
                                                           ("B", "q1", 0.6), ("B", "q2", 0.7)]


def test_concatenated_outputs_of_disjoint_queries_split_by_runid_or_refused(tmp_path):
    path = tmp_path / "disjoint.q"
    path.write_text(_trec_eval_block("A", {"q1": 0.1}) + _trec_eval_block("B", {"q3": 0.5}))
    assert pf.read_results(path).sort("system").select("system", "qid").rows() == [("A", "q1"), ("B", "q3")]
    path.write_text(_trec_eval_block("A", {"q1": 0.1}) + _trec_eval_block(None, {"q3": 0.5}))
    with pytest.raises(InputFormatError, match="query q3 follows the summary \\('all'\\) lines ending on line 3") as info:
        pf.read_results(path)                     # the second run has no runid line to name it
    assert info.value.line == 4


def test_a_query_all_sorted_after_numeric_ids_is_told_from_the_summary_by_the_measures_it_repeats(tmp_path):
    """trec_eval -q's layout with ids 1, 2 and all: the query's lines, then the summary's (runid and num_q
    only there), which prints every measure again; before, every trailing 'all' line was the summary."""
    path = tmp_path / "all_last.q"
    path.write_text("map                   \t1\t0.5000\nP_5                   \t1\t0.2000\n"
                    "map                   \t2\t0.2500\nP_5                   \t2\t0.4000\n"
                    "map                   \tall\t0.1250\nP_5                   \tall\t0.6000\n"
                    "runid                 \tall\tbm25\nnum_q                 \tall\t3\n"
                    "map                   \tall\t0.2917\nP_5                   \tall\t0.4000\n")
    read = pf.read_results(path).sort("measure", "qid")
    assert read.select("qid", "measure", "value").rows() == [("1", "P_5", 0.2), ("2", "P_5", 0.4),
                                                             ("all", "P_5", 0.6), ("1", "map", 0.5),
                                                             ("2", "map", 0.25), ("all", "map", 0.125)]


def test_a_summary_printed_twice_is_no_query_all_against_the_base_reading(tmp_path):
    """The rule above read the first of two printed summaries as a query 'all' (the tester of round 16): two
    summary-only outputs joined with cat (refused: only summary rows, as before), and a run's -q output
    followed by its summary output (43 queries stayed 44). A row equal to its queries' mean or sum to the 4
    printed decimals, or in a block with no query on its measure, is a summary."""
    line = "{:<22}\t{}\t{}\n".format
    both = tmp_path / "two_summaries.txt"
    both.write_text(line("map", "all", "0.2917") + line("P_5", "all", "0.4000")
                    + line("map", "all", "0.3100") + line("P_5", "all", "0.3000"))
    with pytest.raises(EmptyResultError, match="holds only summary rows"):
        pf.read_results(both)
    twice = tmp_path / "q_then_summary.txt"
    twice.write_text(line("map", "1", "0.5000") + line("num_ret", "1", "10") + line("map", "2", "0.2500")
                     + line("num_ret", "2", "10") + line("map", "all", "0.3750") + line("num_ret", "all", "20")
                     + line("map", "all", "0.3750") + line("num_ret", "all", "20"))
    read = pf.read_results(twice)
    assert "summary" not in read.columns and sorted(read["qid"].unique()) == ["1", "2"]
