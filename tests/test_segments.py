"""compare_segments: one-pass kernel vs a per-segment loop, independence of other segments, BH, warnings."""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import polars as pl
import pytest

from pairedframe.comparison.segments import compare_segments, segment_resample_stats
from pairedframe.errors import DuplicateError, SchemaError, SkewWarning, SmallSampleWarning
from pairedframe.stats.multiple import benjamini_hochberg
from tests.reference.segments_reference import compare_segments_reference


def _data(n_q=120, seed=0, systems=("A", "B", "C"), measures=("m1", "m2")):
    rng = np.random.default_rng(seed)
    qids = [f"q{i:03d}" for i in range(n_q)]
    rows = []
    for m in measures:
        base = rng.uniform(size=n_q)
        for k, s in enumerate(systems):
            v = base if k == 0 else np.clip(base + rng.normal(0.03 * k, 0.1, n_q), 0, 1)
            v = np.round(v, 1) if m == "m2" else v       # discrete measure: exact ties
            rows.append(pl.DataFrame({"system": s, "qid": qids, "measure": m, "value": v}))
    per_query = pl.concat(rows)
    segs = pl.DataFrame({
        "qid": qids * 2,
        "segment_set": ["len"] * n_q + ["bucket"] * n_q,
        "segment": [f"L{i % 4}" for i in range(n_q)] + [f"b{i % 13}" for i in range(n_q)],
    })
    return per_query, segs


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_one_pass_equals_loop_reference(alternative):
    per_query, segs = _data(n_q=60)
    # add a tiny segment (n = 3 -> exact enumeration with 200 resamples) and a singleton
    segs = pl.concat([segs, pl.DataFrame({"qid": ["q000", "q001", "q002", "q010"],
                                          "segment_set": ["tiny"] * 3 + ["one"],
                                          "segment": ["t"] * 3 + ["o"]})])
    res = _quiet(compare_segments, per_query, segs, baseline="A", n_resamples=200, seed=7,
                 alternative=alternative, interval="percentile")
    inverted = _quiet(compare_segments, per_query, segs, baseline="A", n_resamples=200, seed=7,
                      alternative=alternative)                   # default: the interval inverting the test
    paired = (per_query.filter(pl.col("system") != "A")
              .join(per_query.filter(pl.col("system") == "A").select("qid", "measure", pl.col("value").alias("a")),
                    on=["qid", "measure"])
              .with_columns((pl.col("value") - pl.col("a")).alias("delta")))
    ref = compare_segments_reference(paired, segs, seed=7, n_resamples=200, alternative=alternative)
    got = res.filter(pl.col("n_queries") >= 2).sort("system", "measure", "segment_set", "segment")
    assert got.height == len(ref)
    for row, r in zip(got.iter_rows(named=True), ref):
        assert (row["system"], row["measure"], row["segment_set"], row["segment"]) == \
               (r["system"], r["measure"], r["segment_set"], r["segment"])
        assert row["pvalue"] == r["pvalue"]
        assert row["exact"] == r["exact"]
        for c in ("delta", "ci_low", "ci_high", "se"):
            assert row[c] == pytest.approx(r[c], rel=1e-12, abs=1e-14), c
    got = inverted.filter(pl.col("n_queries") >= 2).sort("system", "measure", "segment_set", "segment")
    assert got["interval"].unique().to_list() == ["signflip"]
    for row, r in zip(got.iter_rows(named=True), ref):
        assert row["pvalue"] == r["pvalue"]
        for c, rc in (("ci_low", "sf_low"), ("ci_high", "sf_high"), ("se", "sf_se")):
            assert row[c] == pytest.approx(r[rc], rel=1e-9, abs=1e-12), c
        excludes = row["ci_low"] > 0 or row["ci_high"] < 0
        assert excludes == (row["pvalue"] < 0.05)
    assert res.filter(pl.col("segment_set") == "tiny")["exact"].all()
    one = res.filter(pl.col("segment_set") == "one")
    assert one["pvalue"].is_null().all() and one["warning"][0].startswith("only 1")


def test_other_segments_do_not_change_a_segment():
    per_query, segs = _data(n_q=150, seed=3)
    full = _quiet(compare_segments, per_query, segs, baseline="A", n_resamples=300, seed=11)
    only = _quiet(compare_segments, per_query, segs.filter(pl.col("segment") == "b5"), baseline="A",
                  n_resamples=300, seed=11)
    extra = pl.concat([segs, pl.DataFrame({"qid": [f"q{i:03d}" for i in range(0, 150, 2)],
                                           "segment_set": "even", "segment": "e"})])
    more = _quiet(compare_segments, per_query, extra, baseline="A", n_resamples=300, seed=11)
    cols = ["delta", "ci_low", "ci_high", "se", "pvalue"]
    a = full.filter(pl.col("segment") == "b5").select(cols)
    b = only.select(cols)
    c = more.filter(pl.col("segment") == "b5").select(cols)
    assert a.equals(b) and a.equals(c)
    # a different seed changes the resamples
    other = _quiet(compare_segments, per_query, segs.filter(pl.col("segment") == "b5"), baseline="A",
                   n_resamples=300, seed=12)
    assert not other.select("ci_low").equals(b.select("ci_low"))


def test_block_and_chunk_sizes_do_not_matter():
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 300, 60)
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    d = rng.normal(size=int(off[-1]))
    kb = rng.integers(0, 2**63, 60, dtype=np.uint64)
    kf = rng.integers(0, 2**63, 60, dtype=np.uint64)
    r1 = segment_resample_stats(d, off, kb, kf, n_resamples=257)
    r2 = segment_resample_stats(d, off, kb, kf, n_resamples=257, block_elements=500, chunk_elements=1000)
    for k in r1:
        np.testing.assert_array_equal(r1[k], r2[k])
    i1 = segment_resample_stats(d, off, kb, kf, n_resamples=257, bootstrap=False, invert=True)
    i2 = segment_resample_stats(d, off, kb, kf, n_resamples=257, bootstrap=False, invert=True,
                                block_elements=500, chunk_elements=1000)
    for k in i1:
        np.testing.assert_array_equal(i1[k], i2[k])
    np.testing.assert_array_equal(i1["pvalue"], r1["pvalue"])      # inverting does not change the test


def test_bh_per_family_matches_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    per_query, segs = _data(n_q=200, seed=1)
    res = _quiet(compare_segments, per_query, segs, baseline="A", test="t")
    fams = res.partition_by(["system", "measure", "segment_set"])
    assert len(fams) == 2 * 2 * 2
    for f in fams:
        np.testing.assert_allclose(f["pvalue_bh"].to_numpy(),
                                   scipy_stats.false_discovery_control(f["pvalue"].to_numpy(), method="bh"),
                                   rtol=1e-13)
        assert (f["family_size"] == f.height).all()
    one = _quiet(compare_segments, per_query, segs, baseline="A", test="t", family_by=[])
    np.testing.assert_allclose(one["pvalue_bh"].to_numpy(), benjamini_hochberg(one["pvalue"].to_numpy()))


def test_family_column_names_the_rule_as_ppi_compare_segments():
    """compare_segments has ppi_compare_segments' ``family`` (the rule in words, sizes without the units
    that have no p-value) right after ``family_size``, from the same family_adjusted helper."""
    from pairedframe.comparison.segment_tables import family_adjusted
    per_query, segs = _data(n_q=60, seed=3)
    segs = pl.concat([segs, pl.DataFrame({"qid": ["q010"], "segment_set": ["one"], "segment": ["o"]})])
    res = _quiet(compare_segments, per_query, segs, baseline="A", test="t")
    assert res.columns[res.columns.index("family_size") + 1] == "family"
    # the lone query's unit has no p-value (family size 0): it is out of the sizes (4-13, not 0-13), and its
    # own text says it has no test
    rule = "per system, measure, segment_set, 4-13 comparisons"
    tested = res["pvalue"].is_not_null()
    assert set(res.filter(tested)["family"]) == {rule}
    assert set(res.filter(~tested)["family"]) == {"no test: one paired query (left out of its family: per system, measure, segment_set)"}
    for family_by in (None, [], "segment_set", ["system", "segment"]):
        got = _quiet(compare_segments, per_query, segs, baseline="A", test="t", family_by=family_by)
        *_, rule = family_adjusted(got, got["pvalue"].fill_null(float("nan")).to_numpy(), family_by=family_by)
        assert set(got.filter(pl.col("pvalue").is_not_null())["family"]) == {rule}
    pooled = _quiet(compare_segments, per_query, segs, baseline="A", test="t", family_by=[])
    n = pooled["pvalue"].is_not_null().sum()
    assert set(pooled.filter(pl.col("pvalue").is_not_null())["family"]) == {f"all {n} comparisons of the call"}
    assert (pooled["family_size"] == n).all()


def test_t_test_matches_scipy_per_segment():
    scipy_stats = pytest.importorskip("scipy.stats")
    per_query, segs = _data(n_q=90, seed=2)
    res = _quiet(compare_segments, per_query, segs, baseline="A", test="t", systems="B", measures="m1")
    pq = per_query.filter(pl.col("measure") == "m1")
    wide = (pq.filter(pl.col("system") == "B").select("qid", pl.col("value").alias("b"))
            .join(pq.filter(pl.col("system") == "A").select("qid", pl.col("value").alias("a")), on="qid")
            .join(segs, on="qid"))
    for row in res.iter_rows(named=True):
        g = wide.filter((pl.col("segment_set") == row["segment_set"]) & (pl.col("segment") == row["segment"]))
        t = scipy_stats.ttest_rel(g["b"].to_numpy(), g["a"].to_numpy())
        ci = t.confidence_interval(0.95)
        assert row["pvalue"] == pytest.approx(t.pvalue, rel=1e-9)
        assert row["ci_low"] == pytest.approx(ci.low, rel=1e-9)
        assert row["ci_high"] == pytest.approx(ci.high, rel=1e-9)
        assert row["n_queries"] == g.height


def test_resolution_warning_and_columns():
    per_query, segs = _data(n_q=1000, seed=4)
    many = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(1000)], "segment_set": "s",
                         "segment": [f"g{i % 40}" for i in range(1000)]})
    with pytest.warns(UserWarning, match=r"too small for BH.*test='t'"):
        res = compare_segments(per_query, many, baseline="A", systems="B", measures="m1", n_resamples=99)
    # m = 40 segments, B = 99: floor 1/100; BH needs 8 segments at the floor (its adjusted p, in floats,
    # 0.01 / (8 / 40) = 0.049999999999999996, is below 0.05; 7 give 0.057).
    # 7 are there: they are limited by the floor; any other one at the floor would make 8 and pass
    assert (res["min_discoveries"] == 8).all() and not res["significant"].any()
    at_floor = res["pvalue"] == 0.01
    assert at_floor.sum() == 7 and res["resolution_limited"].to_list() == at_floor.to_list()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", SmallSampleWarning)
        warnings.simplefilter("ignore", SkewWarning)    # clipped deltas: some of the 40 segments are skewed
        ok = compare_segments(per_query, many, baseline="A", systems="B", measures="m1", n_resamples=1999)
    assert (ok["min_discoveries"] == 1).all() and not ok["resolution_limited"].any()
    with pytest.warns(UserWarning, match="Holm cannot reject"):
        h = compare_segments(per_query, many, baseline="A", systems="B", measures="m1", n_resamples=499,
                             correction="holm")
    assert h["resolution_limited"].all()
    assert h["min_discoveries"].null_count() == h.height   # 40 x 1/500 > 0.05: no number of discoveries suffices


def test_min_discoveries_is_null_when_no_number_of_segments_at_the_floor_would_be_rejected():
    """BH with 40 segments and B = 39 needs more than 40 * 0.025 / 0.05 = 20 at the floor (p < q j / m,
    strictly, as compare): 21, reachable; with B = 19 it needs more than 40, the whole family at
    p = 0.05 = q is not below q: null (it printed the family size + 1 or 80), and the warning says BH
    cannot reject any segment."""
    per_query, _ = _data(n_q=1000, seed=4)
    many = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(1000)], "segment_set": "s",
                         "segment": [f"g{i % 40}" for i in range(1000)]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reach = compare_segments(per_query, many, baseline="A", systems="B", measures="m1", n_resamples=39)
    assert (reach["min_discoveries"] == 21).all()
    with pytest.warns(UserWarning, match=r"n_resamples=19 is too small for BH.* BH cannot reject any segment"):
        none = compare_segments(per_query, many, baseline="A", systems="B", measures="m1", n_resamples=19)
    assert none["min_discoveries"].null_count() == none.height and none["resolution_limited"].all()


def test_min_discoveries_is_null_on_a_segment_of_one_query_which_has_no_test():
    """A one-query segment (no p-value) printed min_discoveries 0 beside its null p-values."""
    per_query, _ = _data(n_q=30)
    segs = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(30)], "segment_set": "x",
                         "segment": ["one"] + ["rest"] * 29})
    r = _quiet(compare_segments, per_query, segs, baseline="A", systems="B", measures="m1", n_resamples=999)
    one, rest = r.filter(pl.col("segment") == "one").row(0, named=True), r.filter(pl.col("segment") == "rest")
    assert one["pvalue"] is None and one["min_discoveries"] is None
    assert rest["min_discoveries"].to_list() == [1]


@pytest.mark.parametrize("options", [{}, {"test": "t"}, {"interval": "percentile"}, {"interval": "t"},
                                     {"resampling": "adaptive"}, {"alternative": "greater"}])
def test_segment_of_one_query_keeps_its_delta_and_stays_out_of_its_family(options):
    """One query: the delta is well defined (that query's); only the interval and the test need 2.  In memory
    and in DuckDB (the by-join kernel) alike; the segment is left out of its family."""
    import duckdb
    import pairedframe as pf

    qs = [f"q{i}" for i in range(18)]
    a = np.full(18, 0.3)
    b = a + np.r_[np.linspace(0.05, 0.3, 12), [0.1, -0.1, 0.05, -0.02, 0.03, -0.04]]
    pq = pl.DataFrame({"system": ["base"] * 18 + ["sys"] * 18, "qid": qs + qs, "measure": "nDCG@10",
                       "value": np.r_[a, b]})
    seg = pl.DataFrame({"qid": qs, "segment_set": "s", "segment": ["one"] + ["two"] * 2 + ["rest"] * 15})
    rows = []
    engines = (pq,) if options.get("resampling") == "adaptive" else (pq, duckdb.sql("SELECT * FROM pq"))
    for table in engines:          # adaptive sign flips: in memory only
        r = _quiet(pf.compare_segments, table, seg, baseline="base", n_resamples=999, **options)
        one = r.filter(pl.col("segment") == "one").row(0, named=True)
        assert one["n_queries"] == 1 and one["delta"] == pytest.approx(0.05, abs=1e-15)
        assert all(one[c] is None for c in ("ci_low", "ci_high", "se", "pvalue", "pvalue_bh", "pvalue_holm",
                                            "significant"))      # untested: neither significant nor not
        assert one["warning"].startswith("only 1 paired query: its delta")
        assert r["family_size"].to_list() == [2, 2, 2]        # 'two' and 'rest' are tested, not 'one'
        rows.append(r.sort("segment").select("segment", "delta", "pvalue"))
    for other in rows[1:]:                                    # DuckDB's sums may round apart
        assert other["pvalue"].is_null().to_list() == rows[0]["pvalue"].is_null().to_list()
        for c in ("delta", "pvalue"):
            np.testing.assert_allclose(other[c].to_numpy(), rows[0][c].to_numpy(), rtol=1e-12)


def test_the_family_text_of_a_segment_of_one_query_says_it_has_no_test():
    """A one-query segment (no p-value, left out of its family) read "2 comparisons each" like the tested ones."""
    per_query, _ = _data(n_q=30)
    segs = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(30)], "segment_set": "x",
                         "segment": ["one"] + ["some"] * 14 + ["rest"] * 15})
    r = _quiet(compare_segments, per_query, segs, baseline="A", systems="B", measures="m1", n_resamples=999)
    one, tested = r.filter(pl.col("segment") == "one"), r.filter(pl.col("segment") != "one")
    rule = "per system, measure, segment_set, 2 comparisons each"
    assert tested["family"].to_list() == [rule, rule]
    # the sizes are the tested rows' families (the outside researcher read "2 comparisons each" as this row's)
    assert one["family"].to_list() == ["no test: one paired query (left out of its family: per system, measure, segment_set)"]


def test_small_sample_warning_is_collected_once():
    per_query, segs = _data(n_q=100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare_segments(per_query, segs, baseline="A", test="t")
    small = [w for w in caught if issubclass(w.category, SmallSampleWarning)]
    assert len(small) == 1
    n_small = int(res["small_sample"].sum())
    assert n_small == res.filter(pl.col("n_queries") < 20).height > 0
    assert f"{n_small} of {res.height} segment comparisons have fewer than 20 paired queries, the fewest" \
        in str(small[0].message)
    assert res.filter(pl.col("small_sample"))["warning"].str.starts_with("fewer than 20 paired queries: ").all()


def test_bootstrap_stream_is_sound():
    """The counter-based bootstrap's SE matches sd*sqrt((n-1)/n)/sqrt(n); sign-flip p is ~uniform."""
    rng = np.random.default_rng(9)
    n, units = 50, 400
    d = rng.normal(size=n * units)
    off = np.arange(0, n * units + 1, n, dtype=np.int64)
    kb = rng.integers(0, 2**63, units, dtype=np.uint64)
    kf = rng.integers(0, 2**63, units, dtype=np.uint64)
    r = segment_resample_stats(d, off, kb, kf, n_resamples=2000)
    sd = d.reshape(units, n).std(axis=1, ddof=0) / np.sqrt(n)
    ratio = r["se"] / sd
    assert abs(ratio.mean() - 1) < 0.01           # MC error of the mean ratio ~ 0.016/sqrt(400)
    p = r["pvalue"]
    assert 0.03 < np.mean(p < 0.05) < 0.08          # null deltas: about 5% rejections (binomial sd 0.011)
    assert 0.4 < p.mean() < 0.6


def test_repeated_segment_row_error_names_the_file_line_or_table_row(tmp_path):
    """A (qid, segment_set, segment) given twice: the error named neither the file nor the line; it names
    the CSV file and its line (header = line 1), a Parquet file's or an in-memory table's row, and the first."""
    per_query, segs = _data(n_q=30)
    repeated = pl.concat([segs, segs.head(1)])
    row = repeated.height
    qid, name, segment = repeated.row(0)
    what = rf"repeats \(qid, segment_set, segment\) = \('{qid}', '{name}', '{segment}'\)"
    with pytest.raises(DuplicateError, match=rf"^segment table, row {row} \(counting from 1; first at row 1\) {what}"):
        compare_segments(per_query, repeated, baseline="A")
    repeated.write_csv(tmp_path / "segs.csv")
    repeated.write_parquet(tmp_path / "segs.parquet")
    with pytest.raises(DuplicateError, match=rf"^segment file .*segs\.csv, line {row + 1} \(first at line 2\) {what}"):
        compare_segments(per_query, tmp_path / "segs.csv", baseline="A")
    with pytest.raises(DuplicateError, match=rf"^segment file .*segs\.parquet, row {row} \(counting from 1; "):
        compare_segments(per_query, tmp_path / "segs.parquet", baseline="A")
    res = _segments_cli_on(tmp_path, segs)
    assert res.exit_code == 2
    assert re.search(rf"segment file .*segs\.csv, line {row + 1} \(first at line 2\) {what}", res.stderr), res.stderr


def test_bad_inputs():
    per_query, segs = _data(n_q=30)
    with pytest.raises(SchemaError):
        compare_segments(per_query, segs.drop("segment"), baseline="A")
    with pytest.raises(DuplicateError):
        compare_segments(per_query, pl.concat([segs, segs.head(1)]), baseline="A")
    with pytest.raises(ValueError, match="correction"):
        compare_segments(per_query, segs, baseline="A", correction="bonferroni")
    with pytest.raises(ValueError, match="no paired query"):
        compare_segments(per_query, segs.with_columns(pl.lit("zzz").alias("qid")).unique(), baseline="A")
    with pytest.raises(ValueError, match="family_by"):
        compare_segments(per_query, segs, baseline="A", family_by="nope", test="t")


def test_segments_given_as_a_file_path_equal_the_same_table(tmp_path):
    """The CLI's --segments took a file, compare_segments refused the same path."""
    per_query, segs = _data(n_q=60)
    segs = segs.with_columns(pl.col("qid").str.replace("q", "0"))      # ids like 007 must stay text
    per_query = per_query.with_columns(pl.col("qid").str.replace("q", "0"))
    expected = _quiet(compare_segments, per_query, segs, baseline="A", n_resamples=999)
    segs.write_csv(tmp_path / "segments.csv")
    segs.write_parquet(tmp_path / "segments.parquet")
    for path in (tmp_path / "segments.csv", str(tmp_path / "segments.parquet")):
        got = _quiet(compare_segments, per_query, path, baseline="A", n_resamples=999)
        assert got.equals(expected), path
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        compare_segments(per_query, tmp_path / "missing.csv", baseline="A")


def test_forest_plot_writes_file(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from pairedframe.report import forest

    per_query, segs = _data(n_q=80)
    res = _quiet(compare_segments, per_query, segs, baseline="A", test="t")
    out = forest.forest_plot(res, tmp_path / "f.png", system="B", measure="m1", max_rows=10)
    assert out.exists() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no segment"):
        forest.forest_plot(res, tmp_path / "g.png", system="nobody")

    monkeypatch.setitem(sys.modules, "matplotlib", None)          # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pairedframe\[plot\]"):
        forest.forest_plot(res, tmp_path / "h.png", system="B", measure="m1")


def test_t_screening_reports_no_certainty_from_float_noise_or_two_equal_deltas():
    # A = [0.3, 0.5], B = [0.4, 0.6] (deltas 0.1 +- 3e-17) and exactly equal deltas at n = 2 (issue 9)
    pq = pl.DataFrame({"system": ["A", "A", "B", "B", "A", "A", "B", "B"],
                       "qid": ["1", "2", "1", "2", "3", "4", "3", "4"], "measure": "m",
                       "value": [0.3, 0.5, 0.4, 0.6, 0.2, 0.2, 0.3, 0.3]})
    segs = pl.DataFrame({"qid": ["1", "2", "3", "4"], "segment_set": "s", "segment": ["noise", "noise", "eq", "eq"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare_segments(pq, segs, baseline="A", test="t").sort("segment")
    assert res["pvalue"].to_list() == [0.5, 0.5]                 # the exact sign-flip p of 2 equal deltas
    assert not res["significant"].any() and res["sd"].to_list() == [0.0, 0.0]
    assert res["ci_low"].to_list() == [float("-inf")] * 2 and res["ci_high"].to_list() == [float("inf")] * 2


def test_segment_wins_follow_the_measure_direction_against_compare():
    import pairedframe as pf

    per_query, _ = _data(n_q=60, measures=("nDCG@10",))
    ranks = per_query.with_columns(pl.lit("FirstRelRank").alias("measure"), (1 + 20 * pl.col("value")).round(0).alias("value"))
    both = pl.concat([per_query, ranks])
    everything = pl.DataFrame({"qid": per_query["qid"].unique(), "segment_set": "all", "segment": "all"})
    seg = _quiet(compare_segments, both, everything, baseline="A", n_resamples=200).sort("system", "measure")
    oracle = pf.compare(both, baseline="A", n_resamples=200).sort("system", "measure")
    assert seg.select("system", "measure", "wins", "losses", "ties").rows() == \
        oracle.select("system", "measure", "wins", "losses", "ties").rows()
    frr = oracle.filter(pl.col("measure") == "FirstRelRank")
    assert (frr["wins"] != frr["losses"]).all()                 # the test can tell the directions apart


def test_segment_ids_partly_missing_by_leading_zeros_warn_naming_the_near_misses():
    """Half the segment table's ids lost their zeros ('1' for '001', e.g. a CSV read with ids as numbers):
    those queries dropped out of their segments in silence. Now a warning counts them and names the near
    misses, on polars and on a DuckDB relation."""
    import duckdb

    from pairedframe.errors import PartlyEmptyWarning

    qids = [f"{i:03d}" for i in range(1, 13)]
    rng = np.random.default_rng(3)
    per_query = pl.DataFrame({"system": ["A"] * 12 + ["B"] * 12, "qid": qids * 2, "measure": "m",
                              "value": rng.uniform(size=24)})
    seg_ids = qids[:6] + [str(int(q)) for q in qids[6:]]
    segs = pl.DataFrame({"qid": seg_ids, "segment_set": "s", "segment": ["x", "y"] * 6})
    for table in (per_query, duckdb.sql("SELECT * FROM per_query")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("always", PartlyEmptyWarning)
            with pytest.warns(PartlyEmptyWarning, match=r"6 query id\(s\) of the segment table are in no paired "
                                                        r"query.*'10' ~ '010'"):
                compare_segments(table, segs, baseline="A", n_resamples=99)


def test_a_segment_of_unmatched_ids_is_warned_of_once_naming_its_ids_and_the_segment():
    """Segment 'h' holds only an id no paired query has: one warning names the id and the segment left out
    (it used to warn twice, once per check)."""
    from pairedframe.errors import PartlyEmptyWarning

    per_query = pl.DataFrame({"system": ["A"] * 3 + ["B"] * 3, "qid": ["1", "2", "3"] * 2, "measure": "m",
                              "value": [0.1, 0.5, 0.3, 0.4, 0.6, 0.2]})
    segs = pl.DataFrame({"qid": ["1", "2", "3", "x"], "segment_set": "s", "segment": ["g", "g", "g", "h"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", PartlyEmptyWarning)
        got = compare_segments(per_query, segs, baseline="A", n_resamples=99)
    texts = [str(w.message) for w in caught if issubclass(w.category, PartlyEmptyWarning)]
    assert len(texts) == 1, texts
    assert texts[0].startswith("1 query id(s) of the segment table are in no paired query ('x')") and \
        "1 of 2 segments have no paired query, left out of the result: [('s', 'h')]" in texts[0], texts
    assert got["segment"].to_list() == ["g"]


def test_segment_ids_matching_no_paired_query_warn_with_their_count_and_a_few_ids():
    """A segment id that matches no paired query at all (no near miss either) used to leave its segment in
    silence (n_queries one short); now it warns with the count and a few ids, and a table whose ids all
    match stays quiet."""
    from pairedframe.errors import PartlyEmptyWarning

    qids = [f"{i:03d}" for i in range(1, 13)]
    rng = np.random.default_rng(3)
    per_query = pl.DataFrame({"system": ["A"] * 12 + ["B"] * 12, "qid": qids * 2, "measure": "m",
                              "value": rng.uniform(size=24)})
    segs = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": ["x", "y"] * 6})
    other = pl.concat([segs, pl.DataFrame({"qid": [f"z{i}" for i in range(7)], "segment_set": "s",
                                           "segment": "x"})])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", PartlyEmptyWarning)
        got = compare_segments(per_query, other, baseline="A", n_resamples=99)
    texts = [str(w.message) for w in caught if issubclass(w.category, PartlyEmptyWarning)]
    assert len(texts) == 1 and texts[0].startswith("7 query id(s) of the segment table are in no paired query "
                                                   "('z0', 'z1', 'z2', 'z3', 'z4', ...)"), texts
    assert "leading zeros" not in texts[0]
    assert got.filter(pl.col("segment") == "x")["n_queries"].item() == 6
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartlyEmptyWarning)
        warnings.simplefilter("ignore", SmallSampleWarning)
        compare_segments(per_query, segs, baseline="A", n_resamples=99)


def test_segments_cli_reads_segment_names_and_ids_as_text(tmp_path):
    from pairedframe.io.results import read_one

    (tmp_path / "s.csv").write_text("qid,segment_set,segment\n001,len,01\n002,len,02\n")
    got = read_one(tmp_path / "s.csv")
    assert got["qid"].to_list() == ["001", "002"] and got["segment"].to_list() == ["01", "02"]


def test_segment_ids_differing_by_leading_zeros_are_named_in_the_error():
    """Query ids are strings: a segment table with 1..6 against queries 001..006 matches nothing, and the
    error names the near misses, on polars and on a DuckDB relation, as the run-vs-qrels check does."""
    import duckdb

    from pairedframe.errors import EmptyResultError

    qids = [f"{i:03d}" for i in range(1, 7)]
    per_query = pl.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "qid": qids * 2, "measure": "m",
                              "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.2, 0.2, 0.5, 0.3, 0.9, 0.7]})
    segs = pl.DataFrame({"qid": [str(i) for i in range(1, 7)], "segment_set": "s", "segment": ["x", "y"] * 3})
    for table in (per_query, duckdb.sql("SELECT * FROM per_query")):
        with pytest.raises(EmptyResultError, match=r"6 query id\(s\) of the per-query table match ids of the segment "
                                                   r"table except for leading zeros.*'001' ~ '1'"):
            compare_segments(table, segs, baseline="A", n_resamples=99)


def test_segment_near_miss_examples_are_the_smallest_ids_on_a_duckdb_relation():
    """The error quotes the first near misses in id order: DuckDB's DISTINCT returns ids in hash order,
    which changed the quoted examples from run to run (a flaky test of the message above)."""
    import duckdb

    from pairedframe.errors import EmptyResultError

    qids = [f"{i:05d}" for i in range(1, 3001)]
    per_query = pl.DataFrame({"system": ["A"] * 3000 + ["B"] * 3000, "qid": qids * 2, "measure": "m",  # noqa: F841
                              "value": [i % 7 / 10 for i in range(6000)]})                        # (DuckDB reads it)
    segs = pl.DataFrame({"qid": [str(i) for i in range(1, 3001)], "segment_set": "s", "segment": "x"})
    with pytest.raises(EmptyResultError, match=r"its queries e\.g\. \['00001', '00002', '00003'\], the segment "
                                               r"table's \['1', '10', '100'\]\).*\('00001' ~ '1', '00002' ~ '2', "
                                               r"'00003' ~ '3', \.\.\.\)"):
        compare_segments(duckdb.sql("SELECT * FROM per_query"), segs, baseline="A", n_resamples=99)


def _equal_gain(n: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """System b gains exactly +0.1 P@10 over a on each of n queries, all in one segment."""
    qids = [f"q{i}" for i in range(n)]
    a = [0.3, 0.4, 0.2, 0.5, 0.3, 0.6] * (n // 6)
    pq = pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": qids * 2, "measure": "P@10",
                       "value": a + [round(v + 0.1, 10) for v in a]})
    return pq, pl.DataFrame({"qid": qids, "segment_set": "s", "segment": "short"})


def test_segment_with_equal_deltas_labels_its_interval_as_compare_and_explains_the_clash():
    # 6 equal deltas: exact sign-flip p = 2/64 < 0.05, yet the range-based interval of 6 equal deltas holds 0,
    # so the interval no longer inverts the test: the warning column says so, as compare's verdict_note
    import duckdb
    import pairedframe as pf

    pq, seg = _equal_gain(6)
    oracle = _quiet(pf.compare, pq, baseline="a", interval="signflip", n_resamples=1000, seed=0).row(0, named=True)
    for table in (pq, duckdb.sql("SELECT * FROM pq")):
        row = _quiet(compare_segments, table, seg, baseline="a", n_resamples=1000, seed=0).row(0, named=True)
        assert row["pvalue"] == 0.03125 and row["significant"] and row["ci_low"] < 0 < row["ci_high"]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((oracle["ci_low"], oracle["ci_high"]))
        assert row["interval"] == oracle["interval"] == "signflip"
        equal_deltas = oracle["verdict_note"].split("; ")[0]
        assert equal_deltas.startswith("every delta equals +0.1 (no spread)")
        assert row["warning"].startswith("fewer than 20 paired queries: ")
        assert f"; {equal_deltas}; the interval includes 0 although the raw p < 0.05: " in row["warning"]
        assert row["warning"].endswith("significant follows the test, pvalue_bh = 0.0312")


def test_segment_with_equal_deltas_whose_interval_agrees_with_p_notes_only_the_equal_deltas():
    pq, seg = _equal_gain(48)
    row = _quiet(compare_segments, pq, seg, baseline="a", n_resamples=1000, seed=0).row(0, named=True)
    assert row["significant"] and row["ci_low"] > 0
    assert row["warning"].startswith("every delta equals +0.1 (no spread): the interval holds the mean deltas")
    assert "although" not in row["warning"] and "fewer than 20" not in row["warning"]


def test_a_null_in_the_segment_table_names_the_column_and_the_first_such_row():
    """The message said only "null qid, segment_set or segment values"; docs/guide/inputs.md promises the
    column and the first such row."""
    per_query, segs = _data(n_q=30)
    segs = segs.with_columns(pl.when(pl.int_range(pl.len()).is_in([4, 9])).then(None).otherwise(pl.col("segment"))
                             .alias("segment"))
    with pytest.raises(SchemaError, match=r"^segment table has null values in column\(s\) \['segment'\], the first at "
                                          r"row 5 \(counting from 1\): \{'qid': 'q004', 'segment_set': 'len', "
                                          r"'segment': None\}; every row needs a qid, segment_set and segment"):
        compare_segments(per_query, segs, baseline="A")


def test_a_null_in_a_segment_file_names_the_file_and_its_line_or_row(tmp_path):
    """An empty segment in a CSV file named neither the file nor the line ("segment table ..., row 1") where a
    repeated row named both: it names the CSV file and its line (header = line 1), a Parquet file's row."""
    per_query, segs = _data(n_q=30)
    segs = segs.with_columns(pl.when(pl.int_range(pl.len()).is_in([4, 9])).then(None).otherwise(pl.col("segment"))
                             .alias("segment"))
    segs.write_csv(tmp_path / "segs.csv")
    segs.write_parquet(tmp_path / "segs.parquet")
    with pytest.raises(SchemaError, match=r"^segment file .*segs\.csv has null values in column\(s\) \['segment'\], "
                                          r"the first at line 6: \{'qid': 'q004'"):
        compare_segments(per_query, tmp_path / "segs.csv", baseline="A")
    with pytest.raises(SchemaError, match=r"^segment file .*segs\.parquet has null values in column\(s\) "
                                          r"\['segment'\], the first at row 5 \(counting from 1\): \{'qid': 'q004'"):
        compare_segments(per_query, tmp_path / "segs.parquet", baseline="A")
    res = _segments_cli_on(tmp_path, segs)
    assert res.exit_code == 2 and "segs.csv has null values in column(s) ['segment'], the first at line 6" in res.stderr


@pytest.mark.parametrize("problem", ["null", "repeat"])
def test_segment_file_errors_after_a_multiline_quoted_field_name_the_line_against_the_file_text(tmp_path, problem):
    """A segment name quoted over two lines put every later line number one short (row + 2): a null or a repeated
    row now names the line it is on in the file, found here in the file's text."""
    per_query, segs = _data(n_q=30)
    segs = segs.with_columns(pl.when(pl.int_range(pl.len()) == 1).then(pl.lit("two\nlines"))
                             .otherwise(pl.col("segment")).alias("segment"))
    if problem == "null":
        segs = segs.with_columns(pl.when(pl.int_range(pl.len()) == 4).then(None).otherwise(pl.col("segment"))
                                 .alias("segment"))
    else:
        segs = pl.concat([segs, segs[4]])
    segs.write_csv(tmp_path / "segs.csv")
    lines = (tmp_path / "segs.csv").read_text().splitlines()
    assert lines[2] == 'q001,len,"two' and lines[3] == 'lines"'        # the quoted field spans lines 3-4
    line = next(i for i, text in enumerate(lines, start=1) if text.startswith("q004,"))
    if problem == "null":
        with pytest.raises(SchemaError, match=rf"segs\.csv has null values in column\(s\) \['segment'\], the first at "
                                              rf"line {line}: \{{'qid': 'q004'"):
            compare_segments(per_query, tmp_path / "segs.csv", baseline="A")
    else:
        again = len(lines)
        assert lines[again - 1].startswith("q004,") and line == 7
        with pytest.raises(DuplicateError, match=rf"segs\.csv, line {again} \(first at line {line}\) repeats"):
            compare_segments(per_query, tmp_path / "segs.csv", baseline="A")


def test_repeated_segment_error_reads_the_segment_file_once(tmp_path, monkeypatch):
    """The lines of the repeated row and of its first occurrence are found in one read of the file (it was read
    once for each), and are still those lines."""
    from pairedframe.comparison.segment_tables import refuse_repeated_segments
    from pairedframe.io import trec

    _, segs = _data(n_q=30)
    repeated = pl.concat([segs, segs[4]])
    repeated.write_csv(tmp_path / "segs.csv")
    opened = []
    real = trec._open_bytes
    monkeypatch.setattr(trec, "_open_bytes", lambda path, *args, **kw: opened.append(path) or real(path, *args, **kw))
    with pytest.raises(DuplicateError, match=rf"segs\.csv, line {repeated.height + 1} \(first at line 6\) repeats"):
        refuse_repeated_segments(repeated, tmp_path / "segs.csv")
    assert len(opened) == 1, opened


def _segments_cli_on(tmp_path, segs):
    """``pairedframe segments -s segs.csv`` on qrels and two runs holding every qid of ``segs``."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, run_a, run_b = tmp_path / "q", tmp_path / "a", tmp_path / "b"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in segs["qid"].unique()))
    run_a.write_text("".join(f"{q} Q0 d1 1 1 a\n" for q in segs["qid"].unique()))
    run_b.write_text("".join(f"{q} Q0 d2 1 1 b\n" for q in segs["qid"].unique()))
    return CliRunner().invoke(app, ["segments", "-s", str(tmp_path / "segs.csv"), "-m", "AP", str(qrels), str(run_a),
                                    str(run_b)])
