"""Measures to test, derived from the registry: every family with its cutoffs (or float ``@``
values), relevance levels, gains, a judged-only variant and the examples its declaration lists.
Adding a family adds its measures here without editing a test."""

from __future__ import annotations

from pairedframe.measures import REGISTRY, Measure, parse_measure

CUTOFFS = {"none": (None,), "optional": (None, 1, 3), "required": (1, 3, 10)}
AT_VALUES = (0.0, 0.3, 0.5, 1.0, 1.6)


def family_grid(key: str) -> list[Measure]:
    """The measures of one family worth checking (unresolved: rel None means the call's level)."""
    spec = REGISTRY[key]
    if spec.at != "cutoff":
        domain = spec.param(spec.at).domain  # RprecMult@0 and IPrec@1.6 are refused
        base = [Measure(key, params=((spec.at, a),)) for a in AT_VALUES if a in domain]
    else:
        base = [Measure(key, k) for k in CUTOFFS[spec.cutoff]]
    out = list(base)
    if spec.rel_rule != "none":
        out += [Measure(m.family, m.cutoff, 2, params=m.params) for m in base[:2]]
    if spec.uses_gain:
        out += [Measure(m.family, m.cutoff, gain="exp", params=m.params) for m in base[:2]]
    out.append(Measure(base[-1].family, base[-1].cutoff, params=base[-1].params, judged_only=True))
    for name in spec.examples:
        out += parse_measure(name)
    return list(dict.fromkeys(out))


def families(*kinds: str) -> list[str]:
    """Keys of the families that read these kinds of judgments (default: qrels, and num_q which reads any)."""
    kinds = kinds or ("qrels", "any")
    return [key for key, spec in REGISTRY.items() if spec.judgments in kinds]


def every_measure(*kinds: str) -> list[Measure]:
    """The grids of the families of ``kinds`` (see :func:`families`)."""
    return [m for key in families(*kinds) for m in family_grid(key)]
