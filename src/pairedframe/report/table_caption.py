"""The caption of a results table: what the cells are, how the marks were decided and what the layout means."""

from __future__ import annotations

from typing import Any

import polars as pl

from pairedframe.comparison.large_n import LARGE_N, LARGE_N_EFF
from pairedframe.comparison.pairing import null_is_a_miss
from pairedframe.comparison.table_data import DAGGER, DOUBLE_DAGGER, TableData
from pairedframe.comparison.unpairable import MIN_PAIRED, describe_not_compared
from pairedframe.measures.parse import aggregate_of
from pairedframe.stats.levels import percent

__all__ = ["caption_text"]


# what constant_sample_interval gives (t's interval of n equal values would be the point itself)
NO_SPREAD_BOUND = "the exact bound n equal values allow inside the measure's range, as for equal deltas"


def _sided(alternative: str) -> str:
    """"two-sided", or which side a one-sided test looks at, in words a reader of the table needs."""
    if alternative == "two-sided":
        return "two-sided"
    return f"one-sided (system − baseline {'>' if alternative == 'greater' else '<'} 0)"


#: Where compare computes a comparison in one pass (pairedframe.comparison.large_n), in a caption's words.
ONE_PASS_RULE = (f"more than {LARGE_N:,} non-zero deltas, their effective number (the squared sum of squares over "
                 f"the sum of fourth powers) at least {LARGE_N_EFF:,}")


def _describe_test(s: dict[str, Any]) -> str:
    alt = _sided(s.get("alternative", "two-sided"))
    if s.get("correction") == "tukey":
        n = s.get("n_resamples")
        tukey = f"randomised Tukey HSD with {n:,} permutations" if isinstance(n, int) else "randomised Tukey HSD"
        return f"{tukey}, marked only where the pair's own test also rejects"
    if s.get("test") == "t":
        return f"{alt} paired t-test"
    methods = _methods(s)
    if methods == ["one-pass"]:
        return (f"{alt} paired sign-flip test by its normal approximation (more than {LARGE_N:,} non-zero "
                "deltas: one pass over them)")
    n = s.get("n_resamples")
    n = next((v for v in n if isinstance(v, int)), None) if isinstance(n, list) else n
    how = "all sign patterns" if s.get("exact") is True else f"{n:,} sign flips" if isinstance(n, int) else "sign flips"
    text = f"{alt} paired randomization test with {how}"
    if "one-pass" in methods:
        text += f" (by its normal approximation on the rows computed in one pass: {ONE_PASS_RULE})"
    return text


#: Caption wording of compare's interval names.
_INTERVAL_NAMES = {"studentized": "studentized bootstrap (symmetric bootstrap-t)",
                   "signflip": "the shifts the sign-flip test accepts", "t": "t", "percentile": "bootstrap percentile",
                   "bca": "bootstrap BCa"}


def _methods(s: dict[str, Any]) -> list[Any]:
    return s.get("method") if isinstance(s.get("method"), list) else [s.get("method")]


def _interval_text(s: dict[str, Any]) -> str:
    # one pass computes the inversion of the normal approximation for interval="signflip", else the t interval
    # one-pass rows' interval column says "t" where another interval was asked for the others, as do rows whose
    # default interval is Student's t bound (too few queries)
    names = s["interval"] if isinstance(s["interval"], list) else [s["interval"]]
    asked = next((i for i in names if i != "t"), "t")
    one_pass = "the interval inverting the test's normal approximation" if asked == "signflip" else "t"
    name = _INTERVAL_NAMES.get(asked, asked)
    if _methods(s) == ["one-pass"] or name == one_pass:
        return one_pass
    if "one-pass" in _methods(s):
        return f"{name} ({one_pass} on the rows computed in one pass)"
    # the default interval is Student's t below its least number of queries (stats.studentized.student_only)
    return f"{name} (t on the rows with too few queries for it)" if "t" in names and asked != "t" else name


def _why_no_marks(s: dict[str, Any], correction: str) -> str:
    """The caption's sentence for a table without a single mark: the smallest deciding p-value, and
    when the raw p-values sit at the smallest value the test can give, that this floor is the cause."""
    p, raw, alpha = s.get("smallest_p"), s.get("smallest_raw_p"), s["alpha"]
    if p is None:
        return "No cell is marked: the comparison has no p-value."
    text = f"No cell is marked: the smallest {correction} p is {p:.3g} ≥ α = {alpha:g}."
    n_resamples, lo_hi = s.get("n_resamples"), s["n_queries"]
    # a raw p at the test's floor blames the floor, also where the floor is alpha or above (p = alpha is no mark)
    if s.get("test") == "t" or raw is None or not isinstance(lo_hi, tuple):
        return text
    if s.get("exact") is True:
        floor = (2.0 if s.get("alternative", "two-sided") == "two-sided" else 1.0) * 2.0 ** -lo_hi[1]
        how, more = f"the exact sign-flip test over {lo_hi[1]} quer{'y' if lo_hi[1] == 1 else 'ies'}", "more queries"
    elif isinstance(n_resamples, int):
        floor = 1.0 / (n_resamples + 1)
        how, more = f"{n_resamples:,} resamples", "more resamples"
    else:
        return text
    if raw <= floor * (1 + 1e-9):
        text += f" The raw p-values reach {raw:.3g}, the least {how} can give: {more} could mark cells."
    return text


def _paired_queries_only(measures: list[str]) -> list[str]:
    """Why marks in a measure whose means are over different queries compare fewer queries, in the words
    of the measure: one null where nothing relevant is retrieved (FirstRelRank) loses a query for that too,
    which can favour the system that fails more; any other loses only the queries a run lacks."""
    miss = [m for m in measures if null_is_a_miss(m)]
    other = [m for m in measures if m not in miss]
    out = []
    if other:
        out.append(f"Marks in {', '.join(other)} compare only the queries both systems have a value for: a query "
                   "a system lacks (its run has no ranking for it) is left out of that system's comparisons.")
    if miss:
        out.append(f"Marks in {', '.join(miss)} compare only the queries both systems have a value for: a query where "
                   "one has none (it found nothing relevant, or lacks the query) is left out, so a system that "
                   "finds nothing more often can still be marked better.")
    return out


def caption_text(data: TableData, *, best: str = "Bold", second: str = "underlined") -> str:
    """The caption: measures, queries, interval, marks (test, correction, family, alpha, seed), tie rules;
    ``best`` / ``second`` name how the rendering shows the best and second values (plain text: ``*x*``, ``_x_``)."""
    s = data.settings
    lo, hi = s["n_queries"]
    queries = f"{lo} {'query' if lo == 1 else 'queries'}" if lo == hi else f"{lo}-{hi} queries per system"
    judged = f" under the {s['judgments']} judgments" if s.get("judgments") else ""
    summed = [m for m in data.measures if aggregate_of(m) == "sum"]
    averaged = [m for m in data.measures if m not in summed]
    parts = [f"Mean {', '.join(averaged)}{judged} over {queries}." if averaged else
             f"{', '.join(summed)}{judged} over {queries}."]
    if summed:
        parts.append(f"{', '.join(summed)}: summed over queries, as trec_eval; no interval.")
    geometric = [m for m in data.measures if aggregate_of(m) == "gmean"]
    if geometric:
        interval = "; its interval is the t interval of the mean log, exponentiated" if s.get("ci") else ""
        parts.append(f"{', '.join(geometric)}: geometric mean, as trec_eval (values floored at 1e-5){interval}.")
    if s.get("ci"):
        form = "± half-width" if s["ci"] == "halfwidth" else "[low, high]"
        special = "halfwidth" in data.frame.columns and data.frame.filter(
            pl.col("ci_low").is_not_null() & pl.col("halfwidth").is_null()).height > 0
        # a cell whose values have no spread has no t interval: it shows the range bound of n equal values
        where = ("[low, high] where it is clipped to the measure's range or the values have no spread "
                 f"({NO_SPREAD_BOUND})" if s["ci"] == "halfwidth"
                 else f"clipped to the measure's range; where the values have no spread, {NO_SPREAD_BOUND}")
        parts.append(f"{form}: {percent(s['ci_confidence_level'])}% t interval of the mean over queries"
                     + (f", {where}." if special else "."))
    if data.mode != "none":
        correction = {"holm": "Holm-adjusted", "bh": "Benjamini-Hochberg-adjusted", "none": "unadjusted",
                      "tukey": "family-wise adjusted"}[s["correction"]]
        family = s.get("family")
        n = s["n_comparisons"]
        scope = ("family: all pairs of each measure" if s["correction"] == "tukey"
                 else f"family: {family}" if isinstance(family, str) else f"{n} comparison{'s' if n != 1 else ''}")
        random = not (s.get("test") == "t" and s.get("interval") in (None, "t") and s["correction"] != "tukey")
        detail = f"{_describe_test(s)}; {correction} p ({scope}) < α = {s['alpha']:g}"
        if random:   # a t-test with t intervals draws nothing: a seed would suggest it did
            detail += f"; seed {s.get('seed', '?')}"
        if s.get("interval"):
            detail += f"; delta intervals: {_interval_text(s)}"
        if data.mode == "dagger":
            parts.append(f"{DAGGER} / {DOUBLE_DAGGER}: significantly better / worse than {s['baselines'][0]} ({detail}).")
            if s.get("alternative", "two-sided") != "two-sided":
                side = "above" if s["alternative"] == "greater" else "below"
                parts.append(f"One-sided: only a delta {side} 0 can be marked.")
        elif s.get("losses_marked"):   # the losses' sentence only where a cell shows one (captions run long)
            lost = any(DOUBLE_DAGGER in marks for marks in data.frame["marks"])
            worse = f"; letters after {DOUBLE_DAGGER}: significantly worse than those baselines" if lost else ""
            parts.append(f"Letters: significantly better than the baseline with that letter{worse} ({detail}).")
        else:   # pairs="ordered": the pair's two rows mark the winner's cell once
            both = "; each pair was compared both ways, and a significant pair is shown once" if s.get("both_ways") else ""
            parts.append(f"Letters: significantly better than the system with that letter{both} ({detail}).")
        untested = s.get("untested_measures") or []
        if untested:
            parts.append(f"{', '.join(untested)}: not tested (the comparison has no rows for "
                         f"{'it' if len(untested) == 1 else 'them'}), so no marks.")
        if not any(data.frame["marks"]) and len(untested) < len(data.measures):
            parts.append(_why_no_marks(s, correction))
    left_out = s.get("not_compared") or []
    if left_out:        # fewer than 2 common queries: untestable, so unmarked (not the whole table refused)
        need = f"a paired test needs at least {MIN_PAIRED} queries both systems have a value for"
        parts.append(f"No comparison is possible, so no cell is marked: {need}, and {describe_not_compared(left_out)}."
                     if data.mode == "none" else f"Not compared, so not marked ({need}): {describe_not_compared(left_out)}.")
    unranked = s.get("unranked_measures") or []
    counts = s.get("unranked_counts") or []
    # one system is best of nothing: no bold cell, no sentence about it
    if len(data.systems) >= 2 and len(unranked) + len(counts) < len(data.measures):
        runner_up = f", {second}: second best" if len(data.systems) >= 3 else ""
        parts.append(f"{best}: best{runner_up} (systems equal at the shown precision share the mark).")
        split = s.get("ties_split_by_marks") or []
        if split:
            parts.append(f"In {', '.join(split)}, a system significantly better than one it equals at the shown "
                         "precision ranks above it, and none ranks above a system it equals there with a better mean "
                         "(more digits show the difference).")
    if unranked:
        their = "its" if len(unranked) == 1 else "their"
        parts.append(f"No best or second for {', '.join(unranked)}: {their} means are over different numbers of "
                     "queries per system, so they are not comparable.")
        marked = data.frame.filter(pl.col("measure").is_in(unranked) & (pl.col("marks") != ""))
        if marked.height:
            parts += _paired_queries_only(marked["measure"].unique(maintain_order=True).to_list())
    parts += _unranked_kinds(counts)
    if s.get("ranking_tie_rule"):
        parts.append(f"Ranking ties: {s['ranking_tie_rule']}.")
    if s.get("evaluation_options"):
        parts.append(f"Evaluated on {'; '.join(s['evaluation_options'])}.")
    return " ".join(parts)


def _unranked_kinds(measures: list[str]) -> list[str]:
    """The caption's sentences for measures that rank no run: counts (summed: NumRet, NumRel), and the measures of
    how much of a run is judged (Judged@k, Unjudged@k, RBPResid)."""
    counts = [m for m in measures if aggregate_of(m) == "sum"]
    coverage = [m for m in measures if m not in counts]
    parts = []
    if counts:
        parts.append(f"No best or second for {', '.join(counts)}: "
                     f"{'a count that ranks' if len(counts) == 1 else 'counts that rank'} no run.")
    if coverage:
        parts.append(f"No best or second for {', '.join(coverage)}: how much of a run is judged ranks no run.")
    return parts
