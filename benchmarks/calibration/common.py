"""Helpers shared by the calibration sections: replication batches, rates with their Monte-Carlo SE, tables."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

#: alpha as the verdicts compute it (1 - confidence_level = 0.05000000000000004).
ALPHA = 1 - 0.95
#: Replications per batch: each batch is one (n, batch) matrix fed to the many-column kernels, with its
#: own resample streams; columns of a batch share those streams (their data are independent draws).
BATCH = 250


def batches(reps: int, batch: int = BATCH) -> Iterator[tuple[int, int]]:
    for start in range(0, reps, batch):
        yield start, min(reps, start + batch)


def rate(hits: np.ndarray | float, reps: int | None = None) -> str:
    """``p (se)``: a proportion and its Monte-Carlo standard error sqrt(p (1 - p) / R)."""
    h = np.asarray(hits, dtype=float)
    if reps is None:
        reps = h.size
        p = float(h.mean()) if reps else math.nan
    else:
        p = float(h) / reps
    if not reps:
        return "—"
    return f"{p:.3f} ({math.sqrt(max(p * (1 - p), 0.0) / reps):.3f})"


def ratio(num: np.ndarray, den: np.ndarray) -> str:
    """Mean width ratio over replications where both widths are finite (and how many are not)."""
    ok = np.isfinite(num) & np.isfinite(den)
    text = f"{np.mean(num[ok]) / np.mean(den[ok]):.2f}" if ok.any() else "—"
    if (~ok).any():
        text += f" ({int((~ok).sum())} inf)"
    return text


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def draw(pops, n: int, reps: int, rng: np.random.Generator, *, centre: bool = False, symmetric: bool = False,
         shift: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(D (n, reps), truth (reps,), population index (reps,)): replication r draws n deltas i.i.d. (with
    replacement) from population r mod P.  ``centre``: minus the population mean (true mean 0, the
    population's skew kept); ``symmetric``: each delta's sign flipped with probability 1/2 (the labels A/B
    swapped at random: mean 0 and symmetric, the sign-flip test's null); ``shift``: added per population
    after centring."""
    D = np.empty((n, reps))
    truth = np.empty(reps)
    which = np.arange(reps) % len(pops)
    for r in range(reps):
        pop = pops[which[r]].deltas
        x = pop[rng.integers(0, pop.shape[0], n)]
        if symmetric:
            x = x * rng.choice([-1.0, 1.0], n)
            truth[r] = 0.0
        elif centre or shift is not None:
            x = x - pop.mean()
            if shift is not None:
                x = x + shift[which[r]]
            truth[r] = 0.0 if shift is None else shift[which[r]]
        else:
            truth[r] = pop.mean()
        D[:, r] = x
    return D, truth, which
