"""Several baselines and all pairs: a thin layer over the single-baseline :func:`~pairedframe.comparison.paired.compare`.

Each baseline's comparisons are a copy of the per-query table in which that baseline is renamed to a
placeholder and a key column ``vs_baseline`` names it; the copies are stacked and compared in *one*
call of the single-baseline ``compare`` with the placeholder as baseline.  So every pair goes
through exactly the code of a single-baseline comparison: the same pairing, the same keyed resample
streams (keyed by the seed and the pair's query set only -- a pair's interval and p-value do not
depend on what else is in the call), the same verdict rules; and Holm / Benjamini-Hochberg run over
the family chosen with ``family_by`` (default: one family per value of the key columns, e.g. per
judgment set, else every row of the call; ``family_by="baseline"``: one family per baseline).
Every unordered pair of systems is one row, so it counts once in its family: two baselines are
compared once, the earlier one as baseline.

For all pairs the randomised Tukey HSD test (:mod:`pairedframe.stats.tukey`) adds ``pvalue_tukey``:
per measure (and key), one set of within-query permutations over every system, on the queries
measured for all of them, its stream keyed by the seed, the query set and the systems' names (the
columns taken in name order, so neither ``systems=`` nor the table's row order changes it); it controls the family-wise error over all pairs of that measure when the
systems are exchangeable within a query (its permutation null).  It is the randomised Tukey HSD
p-value of the literature (Carterette 2012; Sakai 2018; about 0.10 for X vs Z of Sakai's Table 5.1),
so it can be *below* the pair's own ``pvalue``: the two are different tests (Tukey's null spreads
the pooled within-query variation of every system; the pair's sign-flip test uses only its own
deltas).  ``pvalue_max_tukey_raw = max(pvalue_tukey, pvalue)`` is significant only where both reject:
the more cautious choice when spreads differ between pairs, where Tukey's exchangeability fails.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.checks import require_bool, require_names
from pairedframe.comparison import paired
from pairedframe.comparison._adaptive import DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES
from pairedframe.comparison._cost import check_resampling_cost
from pairedframe.comparison._families import family_columns
from pairedframe.comparison.measure_names import one_name_per_measure
from pairedframe.comparison.options import check_options
from pairedframe.comparison.pairing import PER_QUERY_FORMS, as_frame, by_system
from pairedframe.io.convert import to_polars
from pairedframe.io.results import SUMMARY_QID, evaluation_rows, read_if_paths
from pairedframe.errors import (OLD_LEVEL_AND_SEED, USE_CORRECTION, InsufficientSampleError, ResamplingCostError,
                                SchemaError, ValueRangeWarning, recorded_warnings, reissue, renamed_keywords,
                                user_stacklevel)
from pairedframe.stats.resample import keyed_seed_sequence, query_set_key
from pairedframe.stats.tukey import randomised_tukey_hsd
from pairedframe.tables import per_query_renames

__all__ = ["MAX_TUKEY_RAW", "PAIRS", "compare"]

PAIRS = ("all", "ordered")
#: max(pvalue_tukey, pvalue): significant where both the Tukey HSD and the pair's own test reject.
MAX_TUKEY_RAW = "pvalue_max_tukey_raw"
_PLACEHOLDER = "[each baseline]"
_KEY = "vs_baseline"


def _frame(data: Any) -> pl.DataFrame:
    frame = to_polars(read_if_paths(evaluation_rows(data)), "per-query table", expected=PER_QUERY_FORMS)
    frame = frame.rename(per_query_renames(frame.columns, "the per-query table"))  # run_id: system, as in runs
    if "system" not in frame.columns:
        raise SchemaError(f"per-query table lacks column 'system' (has {frame.columns})")
    for reserved in (_KEY,):
        if reserved in frame.columns:
            raise ValueError(f"column {reserved!r} is reserved for several-baseline comparisons; rename it")
    return frame.with_columns(pl.col("system").cast(pl.String))


def _plan(systems: list[str], baseline: Any, pairs: str | None) -> list[tuple[str, list[str]]]:
    """(baseline, systems compared with it) for every baseline of the call."""
    if pairs is None:
        baselines = ([baseline] if isinstance(baseline, str)
                     else list(dict.fromkeys(baseline)) if isinstance(baseline, Iterable) else [])
        if not baselines or not all(isinstance(b, str) for b in baselines):
            raise TypeError(f"`baseline` must be a system name or a list of names, got {baseline!r}")
        unknown = [b for b in baselines if b not in systems]
        if unknown:
            raise ValueError(f"baseline(s) {unknown} not among the systems {systems}")
        return [(b, [s for s in systems if s != b]) for b in baselines]
    if pairs not in PAIRS:
        raise ValueError(f"`pairs` must be one of {PAIRS}, got {pairs!r}")
    if len(systems) < 2:
        raise ValueError(f"all pairs need at least 2 systems, got {systems}")
    if pairs == "all":
        return [(b, systems[i + 1:]) for i, b in enumerate(systems[:-1])]
    return [(b, [s for s in systems if s != b]) for b in systems]


def _refuse_one_sided_unordered(alternative: str, how: str | None) -> None:
    """A one-sided test of a pair compared once asks only whether the later system beats (or trails) the
    earlier one: the order the systems are given in would decide which hypotheses are tested."""
    if how is not None and alternative != "two-sided":
        raise ValueError(f"alternative={alternative!r} with {how}: the test would ask only whether the later system is "
                         f"{alternative} than the earlier one, so the order of the systems would decide the hypotheses; "
                         "use pairs='ordered' (each pair in both directions) or alternative='two-sided'")


def _warn_mirrored_pairs(n_systems: int, correction: str) -> None:
    """pairs="ordered" with a two-sided test: each pair's two rows are one hypothesis, counted twice."""
    pairs = n_systems * (n_systems - 1) // 2
    name = {"holm": "Holm", "bh": "Benjamini-Hochberg"}.get(correction, correction)
    warnings.warn(f"pairs='ordered' with a two-sided test: a pair's two rows (a vs b, b vs a) test one hypothesis, so "
                  f"{name} counts each pair twice ({2 * pairs} comparisons per measure for {pairs} hypotheses): "
                  "conservative; pairs='all' counts each pair once", UserWarning, stacklevel=user_stacklevel())


def _several_baselines(chosen: list[str], baselines: list[str]) -> list[tuple[str, list[str]]]:
    """(baseline, systems compared with it) for several baselines, each unordered pair once.

    Two baselines are compared once, the earlier one (in the order given) as baseline -- as
    ``pairs="all"`` does -- so that Holm/BH do not count the pair and its mirror as two comparisons."""
    plan = []
    for i, base in enumerate(baselines):
        others = [s for s in chosen if s != base]
        if not others:
            raise ValueError(f"nothing to compare with baseline {base!r}")
        plan.append((base, [s for s in others if s not in baselines[:i]]))
    return plan


def _tukey_pvalues(frame: pl.DataFrame, result: pl.DataFrame, systems: list[str], extras: list[str],
                   n_resamples: int, seed: int) -> pl.Series:
    """``pvalue_tukey`` of every result row: one randomised Tukey HSD per (extras, measure)."""
    lookup: dict[tuple, float] = {}
    for key, group in frame.filter(pl.col("system").is_in(systems)).group_by([*extras, "measure"], maintain_order=True):
        wide, qid = by_system(group)
        wide = wide.drop_nulls()
        # sorted: the permutations act on the columns, so the systems' order (systems=, the table's rows)
        # would otherwise change the null distribution drawn from the same keyed stream
        present = sorted(s for s in systems if s in wide.columns and s != qid)   # qid: the query column
        if wide.height < 2 or len(present) < 2:
            continue
        wide = wide.sort(qid)
        qids = wide[qid].to_list()
        rng = np.random.default_rng(keyed_seed_sequence(seed, ("tukey-hsd", query_set_key(qids), tuple(present))))
        res = randomised_tukey_hsd(wide.select(present).to_numpy(), n_resamples=n_resamples, seed=rng)
        for i, a in enumerate(present):
            for j, b in enumerate(present):
                lookup[(*key, a, b)] = float(res.pvalue[i, j])
    rows = result.select(*extras, "measure", "baseline", "system").iter_rows()
    return pl.Series("pvalue_tukey", [lookup.get(tuple(r), float("nan")) for r in rows], dtype=pl.Float64)


def _compared_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` as the pairwise comparisons read it (:func:`~pairedframe.comparison.pairing.as_frame`, its warnings
    already given by them): without the trec_eval summary rows they left out, so the Tukey HSD permutes the same
    queries (a summary row 'all' counted as one more query moved pvalue_tukey)."""
    with recorded_warnings():
        return as_frame(frame, keep_nulls=True, warn_ranges=False)


def _check_tukey_cost(frame: pl.DataFrame, systems: list[str], keys: list[str], n_resamples: int) -> None:
    """The up-front cost check of the Tukey HSD permutations (one set per measure and key value: ``n``
    queries x ``m`` systems shuffled, argsorted and summed per permutation; the ranges kept)."""
    sizes = (frame.filter(pl.col("system").is_in(systems)).group_by([*keys, "measure"])
             .agg(pl.col("qid").n_unique().alias("n"))["n"].to_numpy())
    m = len(systems)
    check_resampling_cost(n_resamples, argument="n_resamples", draws=n_resamples,
                          units=sizes * m * (1 + math.log2(max(m, 2))), columns=1, kept=2)


@renamed_keywords(verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
def compare(data: Any, *, baseline: str | Sequence[str] | None = None, pairs: str | None = None,
            systems: Sequence[str] | str | None = None, measures: Sequence[str] | str | None = None,
            family_by: Sequence[str] | str | None = None, tukey: bool = True, n_resamples: int = 10_000,
            confidence_level: float = 0.95, alternative: Literal["two-sided", "greater", "less"] = "two-sided",
            test: Literal["randomization", "t"] = "randomization", seed: int = 0, chunk_size: int | None = None,
            interval: Literal["signflip", "percentile", "bca", "t", "studentized"] | None = None,
            power: float = 0.8, correction: Literal["none", "holm", "bh"] = "holm",
            progress: Callable[[int, int], None] | None = None,
            resampling: Literal["auto", "fixed", "adaptive"] = "auto", decision_error: float = DEFAULT_DECISION_ERROR,
            max_resamples: int = DEFAULT_MAX_RESAMPLES) -> pl.DataFrame:
    """Compare systems with one baseline, several baselines, or every pair.

    Parameters
    ----------
    data : Evaluation or per-query table
        As :func:`pairedframe.comparison.paired.compare` (``system, qid, measure, value`` + keys).
        With several baselines or ``pairs=``, a DuckDB relation or Spark DataFrame is read into memory
        as polars (every option works there); with one baseline it is compared in its engine.
    baseline : str or sequence of str, optional
        One name: exactly :func:`pairedframe.comparison.paired.compare`.  Several names: every
        system is compared with each baseline, and two baselines with each other *once*, the
        earlier one (in the order given) as baseline, as ``pairs="all"`` does: the mirrored row
        (later baseline as baseline) would test the same pair again, and Holm/BH would count it as a
        second comparison of the family.  So with ``k`` baselines among ``n`` systems the call has
        ``k (n - 1) - k (k - 1) / 2`` rows per measure (and key), and a baseline whose every
        system is an earlier baseline has no row of its own.
    pairs : {"all", "ordered"}, optional
        ``"all"``: every *unordered* pair once, the earlier system (in ``systems`` order, default
        order of appearance; an Evaluation lists its systems by name, so pass ``systems=`` to
        choose) as baseline -- delta = later - earlier.  ``"ordered"``: every ordered pair, i.e.
        each system as baseline of every other; with a two-sided test both directions test the
        same hypothesis and Holm/BH count it twice (conservative), so prefer ``"all"``
        unless ``alternative`` is one-sided.
    systems : str or sequence of str, optional
        The systems involved (default: all); with several baselines, the systems compared with them.
    measures : str or sequence of str, optional
        Default: every measure.
    family_by : str or sequence of str, optional
        Columns splitting the Holm / Benjamini-Hochberg family: ``"baseline"``, ``"system"``,
        ``"measure"`` or a key column.  Default: one family per value of the key columns (e.g. per
        judgment set of :func:`~pairedframe.evaluate_judgment_sets`, or per dataset), every row of
        the call without key columns; ``[]``: one family over every row of the call.
    tukey : bool, default True
        With ``pairs``, add ``pvalue_tukey`` (randomised Tukey HSD, ``n_resamples`` permutations,
        two-sided, over the queries every system has; NaN for a one-sided ``alternative``) and
        ``pvalue_max_tukey_raw``, the larger of it and the row's own ``pvalue`` (module docstring).
    n_resamples, confidence_level, alternative, test, seed, chunk_size, interval, power, correction
        As the single-baseline :func:`pairedframe.comparison.paired.compare`.
    progress, resampling, decision_error, max_resamples
        As the single-baseline :func:`pairedframe.comparison.paired.compare` (every option is checked
        once, here, before any table is read; the errors name the argument).

    Returns
    -------
    polars.DataFrame
        The columns of :func:`pairedframe.comparison.paired.compare`, one row per (baseline,
        system, keys, measure), sorted by baseline, system (both in ``systems`` order) and measure;
        ``baseline`` holds each row's baseline; ``family`` the Holm/BH family rule in words, with
        its size (e.g. ``"per judgments, 4 comparisons each"``); for pairs also ``pvalue_tukey``
        and ``pvalue_max_tukey_raw``.  ``n_resamples`` counts the resamples of every resampled column of
        the row: where ``pvalue_tukey`` was resampled it is at least ``n_resamples`` even on a
        ``method="one-pass"``, ``"analytic"`` or ``"exact"`` row, whose own ``pvalue`` and interval were not.

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message gives the largest value that fits).
    TypeError
        ``baseline`` and ``pairs`` both or neither given, or a bad ``baseline``.
    ValueError
        Unknown baseline, systems, measures or ``family_by`` column; bad ``pairs``.
    InsufficientSampleError
        A pair with fewer than 2 common queries (:class:`~pairedframe.errors.EmptyResultError`: none);
        names that match nothing.

    Warns
    -----
    SmallSampleWarning, UserWarning
        As :func:`pairedframe.comparison.paired.compare`, pointing at the caller's line.

    References
    ----------
    Holm (1979); Benjamini & Hochberg (1995); Carterette (2012), TOIS 30(1); Sakai (2014), SIGIR Forum 48(1).
    """
    opt = check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size, power,
                        resampling, decision_error, max_resamples, correction)     # once, before any table is read
    tukey = require_bool(tukey, "tukey")
    if (baseline is None) == (pairs is None):
        raise TypeError("give exactly one of baseline= (a name or a list of names) and pairs= ('all' or 'ordered')")
    if pairs is None and isinstance(baseline, str):
        with recorded_warnings() as caught:
            single = paired.compare_checked(data, opt, baseline=baseline, systems=systems, measures=measures,
                                            family_by=family_by, progress=progress)
        _reissue(caught)
        return single
    frame = _frame(data)
    present = frame["system"].unique(maintain_order=True).to_list()
    chosen = require_names(systems, present, what="system", parameter="systems", source="the per-query table")
    if pairs is None:
        baselines = [b for b, _ in _plan(present, baseline, None)]
        _refuse_one_sided_unordered(opt.alternative, f"several baselines ({baselines[0]!r} and {baselines[1]!r} "
                                    f"are compared once, {baselines[0]!r} as baseline)" if len(baselines) > 1 else None)
        plan = _several_baselines(chosen, baselines)
    else:
        _refuse_one_sided_unordered(opt.alternative, "pairs='all' (each pair compared once, the earlier system "
                                    "as baseline)" if pairs == "all" else None)
        plan = _plan(chosen, None, pairs)
        if pairs == "ordered" and opt.alternative == "two-sided" and opt.correction != "none":
            _warn_mirrored_pairs(len(chosen), opt.correction)
    if _PLACEHOLDER in present:
        raise ValueError(f"system name {_PLACEHOLDER!r} is reserved")
    copies = []
    for base, others in plan:
        if not others:
            continue                # every system of this baseline is an earlier baseline: compared there
        part = frame.filter(pl.col("system").is_in([base, *others]))
        copies.append(part.with_columns(
            pl.when(pl.col("system") == base).then(pl.lit(_PLACEHOLDER)).otherwise(pl.col("system")).alias("system"),
            pl.lit(base).alias(_KEY)))
    stacked = pl.concat(copies)
    keys = [c for c in frame.columns if c not in ("system", "qid", "measure", "value", "summary")]  # summary: no key
    fam = family_columns(family_by, keys=keys, allowed=["baseline", "system", "measure", *keys])
    fam_cols = [_KEY if c == "baseline" else c for c in fam]       # default: the key columns, not per baseline
    if pairs is not None and tukey and alternative == "two-sided":
        _check_tukey_cost(frame, chosen, keys, opt.n_resamples)
    with recorded_warnings() as caught:
        try:
            out = paired.compare_checked(stacked, opt, baseline=_PLACEHOLDER, measures=measures, family_by=fam_cols,
                                         progress=progress)
        except ResamplingCostError:
            raise                       # names no system: nothing to make readable, and keeps its fields
        except (InsufficientSampleError, ValueError) as exc:
            raise type(exc)(_readable(str(exc))) from None
    involved = {s for base, others in plan if others for s in (base, *others)}
    _reissue(_unstacked(caught, frame.filter(pl.col("system").is_in(involved)), out["measure"].unique().to_list()))
    extras = [c for c in out.columns if c in stacked.columns and c not in ("system", "qid", "measure", "value", _KEY)]
    base_order = {b: i for i, (b, _) in enumerate(plan)}
    sys_order = {s: i for i, s in enumerate(chosen)}
    out = (out.with_columns(pl.col(_KEY).alias("baseline"))
           .with_columns(pl.col("baseline").replace_strict(base_order, return_dtype=pl.Int64).alias("_b"),
                         pl.col("system").replace_strict(sys_order, return_dtype=pl.Int64).alias("_s"))
           .with_row_index("_r").sort("_b", "_s", "_r").drop("_b", "_s", "_r", _KEY))
    out = out.with_columns(pl.col("family").str.replace_all(_KEY, "baseline", literal=True))
    if pairs is not None and tukey:
        if alternative == "two-sided":
            out = out.with_columns(_tukey_pvalues(_compared_rows(frame), out, chosen, extras, opt.n_resamples,
                                                  opt.seed))
            # n_resamples counts every resampled column of the row: a one-pass, analytic or exact row's
            # pvalue_tukey too (its permutations, not the exact row's enumerated patterns)
            out = out.with_columns(pl.when(pl.col("pvalue_tukey").is_nan()).then(pl.col("n_resamples"))
                                   .otherwise(pl.lit(opt.n_resamples, dtype=out["n_resamples"].dtype))
                                   .alias("n_resamples"))
            # Significant only where both the joint test and the pair's own test reject (module docstring).
            out = out.with_columns(pl.when(pl.col("pvalue_tukey").is_nan()).then(pl.col("pvalue_tukey"))
                                   .otherwise(pl.max_horizontal("pvalue_tukey", "pvalue")).alias(MAX_TUKEY_RAW))
        else:
            out = out.with_columns(pl.lit(float("nan")).alias("pvalue_tukey"),
                                   pl.lit(float("nan")).alias(MAX_TUKEY_RAW))
    return out


def _reissue(caught: list) -> None:
    """Re-issue recorded warnings so that they point at the first caller outside pairedframe (with the
    placeholder names made readable), each still from the package that issued it."""
    for warning, origin in caught:
        reissue(warning, origin, _readable(str(warning)))


def _unstacked(caught: list, frame: pl.DataFrame, measures: list[str]) -> list:
    """``caught`` with its ValueRangeWarning and its warning of dropped summary rows taken again from ``frame``,
    the table before it was copied per baseline: the stacked ones name the placeholder for the baseline's values
    (which baseline, they cannot say) and count a system once per copy.  Both count the rows of the ``measures``
    compared only (as the table spells them once: :func:`~pairedframe.comparison.measure_names.
    one_name_per_measure`), as the single-baseline call checks values: a measure not compared is not their concern."""
    if not any(_recounted(warning) for warning, _ in caught):
        return caught
    frame = one_name_per_measure(frame.with_columns(pl.col("measure").cast(pl.String)))
    with recorded_warnings() as again:
        as_frame(frame.filter(pl.col("measure").is_in(measures)))
    out = []
    for item in caught:
        kind = _recounted(item[0])
        if not kind:
            out.append(item)
            continue
        out.extend(w for w in again if _recounted(w[0]) == kind)    # one warning, where the stacked call gave it
        again = [w for w in again if _recounted(w[0]) != kind]
    return out


def _recounted(warning: Warning) -> str:
    """Which warning counting rows of the stacked table ``warning`` is ("" for any other)."""
    if isinstance(warning, ValueRangeWarning):
        return "ranges"
    return "summary" if str(warning).startswith("dropped ") and f"summary rows with qid == {SUMMARY_QID!r}" in str(
        warning) else ""


def _readable(message: str) -> str:
    message = message.replace(f"the baseline {_PLACEHOLDER!r}", "their baseline")
    if f"{_KEY}=" in message:       # the row names its own baseline: drop the placeholder's
        message = (message.replace(f", baseline={_PLACEHOLDER}", "").replace(f", baseline={_PLACEHOLDER!r}", "")
                   .replace(repr(_PLACEHOLDER), "the baseline"))
    return message.replace(f"{_KEY}=", "baseline=").replace(repr(_PLACEHOLDER), "each baseline")
