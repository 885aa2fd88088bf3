"""Ties of a results table at the shown precision, split where a significance mark separates two systems."""

from __future__ import annotations

import itertools

import polars as pl

__all__ = ["beaten_depth"]


def beaten_depth(shown: pl.DataFrame, wins: list[tuple[str, str, str]], lower: list[str]
                 ) -> dict[tuple[str, str], int]:
    """How far below its tie's best place each (system, measure) tied at the shown precision ranks.

    A system ranks below each tie-mate significantly better than it and no higher than any with a better
    mean (a chain a > b > c puts c at 2): marks split a tie, along the unrounded means. Null means: no tie.

    Parameters
    ----------
    shown : polars.DataFrame
        ``system, measure, _shown, mean``: the mean as shown (rounded) and unrounded.
    wins : list of (winner, loser, measure)
        The significant wins, in the measure's direction.
    lower : list of str
        The measures where lower is better.

    Returns
    -------
    dict
        (system, measure) -> depth below the tie's best place, only where it is not 0.
    """
    groups: dict[tuple[str, float], list[tuple[float, str]]] = {}
    for system, measure, value, mean in shown.select("system", "measure", "_shown", "mean").iter_rows():
        if value is not None and mean is not None and mean == mean:
            groups.setdefault((measure, value), []).append((-mean if measure in lower else mean, system))
    tie = {(system, key[0]): key for key, members in groups.items() for _, system in members}
    beaters: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for winner, loser, measure in wins:
        if (winner, measure) in tie and tie[(winner, measure)] == tie.get((loser, measure)):
            beaters.setdefault((loser, measure), []).append((winner, measure))
    depth: dict[tuple[str, str], int] = {}
    floor: dict[tuple[str, str], int] = {}   # the deepest place of the tie-mates with a better mean

    def of(key: tuple[str, str], seen: frozenset = frozenset()) -> int:
        if key not in depth:    # a winner's mean is the better one, so no chain comes back (seen: to be sure)
            depth[key] = max(floor.get(key, 0), 1 + max((of(w, seen | {key}) for w in beaters.get(key, [])
                                                         if w not in seen), default=-1))
        return depth[key]

    for (measure, _), members in groups.items():
        deepest = 0
        for _, block in itertools.groupby(sorted(members, reverse=True), key=lambda item: item[0]):
            keys = [(system, measure) for _, system in block]
            floor.update(dict.fromkeys(keys, deepest))
            deepest = max(deepest, *(of(key) for key in keys))
    return {k: d for k, d in depth.items() if d}
