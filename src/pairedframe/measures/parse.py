"""Parse measure names in ir_measures style (``nDCG@10``, ``AP(rel=2)@100``) and trec_eval style
(``ndcg_cut_10``, ``map``, ``P.5,10``) into :class:`~pairedframe.measures.base.Measure` values."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from pairedframe.errors import UnknownMeasureError
from pairedframe.measures.base import REGISTRY, Measure

# trec_eval's default measure set (``trec_eval`` without -m) restricted to what pairedframe implements.
OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P")

_IR_STYLE = re.compile(r"^(?P<family>[A-Za-z_]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")
_TREC_PARAM_STYLE = re.compile(r"^(?P<name>[A-Za-z_]+?)(?:_(?P<cutoff>\d+)|\.(?P<list>[\d,]+))?$")


def _family_lookup() -> dict[str, str]:
    table: dict[str, str] = {}
    for key, spec in REGISTRY.items():
        for name in (key, *spec.aliases):
            table[name.lower()] = key
    return table


def _trec_lookup() -> dict[str, tuple[str, bool]]:
    """trec_eval names -> (family, is the cut/parameterised form)."""
    table: dict[str, tuple[str, bool]] = {}
    for key, spec in REGISTRY.items():
        if spec.trec_cut_name:
            table[spec.trec_cut_name] = (key, True)
        table.setdefault(spec.trec_name, (key, spec.trec_cut_name == spec.trec_name))
    return table


def known_names() -> list[str]:
    """Example names of every family in both styles, for error messages and ``--help``."""
    names: list[str] = []
    for key, spec in sorted(REGISTRY.items()):
        names.append(key if spec.cutoff == "none" else f"{key}@10" if spec.cutoff == "required" else key)
        if spec.cutoff == "optional":
            names.append(f"{key}@10")
        names.append(spec.trec_name if spec.trec_cut_name != spec.trec_name else f"{spec.trec_name}_10")
        if spec.trec_cut_name and spec.trec_cut_name != spec.trec_name:
            names.append(f"{spec.trec_cut_name}_10")
    return list(dict.fromkeys(names))


def _unknown(name: str, why: str = "") -> UnknownMeasureError:
    close = difflib.get_close_matches(name, known_names(), n=4, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known_names())}"
    return UnknownMeasureError(f"unknown measure {name!r}{(' (' + why + ')') if why else ''}{hint}")


def _make(family: str, cutoff: int | None, rel: int | None, gain: str, text: str) -> Measure:
    spec = REGISTRY[family]
    if cutoff is not None and cutoff < 1:
        raise _unknown(text, "a cutoff must be a positive integer")
    if spec.cutoff == "none" and cutoff is not None:
        raise _unknown(text, f"{family} takes no cutoff")
    if spec.cutoff == "required" and cutoff is None:
        raise _unknown(text, f"{family} needs a cutoff, e.g. {family}@10")
    if rel is not None and not spec.uses_rel:
        raise _unknown(text, f"{family} does not use a relevance level (rel=)")
    if gain != "linear" and not spec.uses_gain:
        raise _unknown(text, f"{family} has no gain parameter")
    return Measure(family, cutoff, rel, gain)  # type: ignore[arg-type]


def _parse_params(text: str, params: str) -> tuple[int | None, str]:
    rel: int | None = None
    gain = "linear"
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key == "rel" and re.fullmatch(r"\d+", value):
            rel = int(value)
        elif key == "gain" and value in ("linear", "exp"):
            gain = value
        else:
            raise _unknown(text, f"bad parameter {item!r}: use rel=<int> or gain=linear|exp")
    return rel, gain


def parse_measure(text: str) -> list[Measure]:
    """Parse one measure name; trec_eval's list forms (``P.5,10``, bare ``P``) give several.

    Parameters
    ----------
    text : str
        ir_measures style ``Family(params)@k`` (``nDCG@10``, ``AP(rel=2)@100``,
        ``nDCG(gain=exp)@10``, ``Success@5``) or trec_eval style (``ndcg_cut_10``, ``map_cut_100``,
        ``P_10``, ``recall_100``, ``recip_rank``, ``success_5``, ``ndcg_cut.10,20``, ``P.5,10``;
        a bare ``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``success`` expands to trec_eval's
        default cutoffs), or ``official`` for trec_eval's default measure set.

    Returns
    -------
    list of Measure

    Raises
    ------
    UnknownMeasureError
        The name matches no family, or its cutoff/parameters are invalid; the message suggests
        close matches.
    """
    text = text.strip()
    if text == "official":
        return [m for name in OFFICIAL for m in parse_measure(name)]
    trec = _trec_lookup()
    match = _TREC_PARAM_STYLE.match(text)
    if match and match["name"] in trec:
        family, is_cut = trec[match["name"]]
        spec = REGISTRY[family]
        if match["cutoff"] is not None or match["list"] is not None:
            if not is_cut:
                raise _unknown(text, f"{match['name']} takes no cutoff")
            cutoffs = [match["cutoff"]] if match["cutoff"] else [c for c in match["list"].split(",") if c]
            return [_make(family, int(c), None, "linear", text) for c in cutoffs]
        if is_cut and spec.cutoff != "none":
            if not spec.default_cutoffs:
                raise _unknown(text, f"{match['name']} needs a cutoff, e.g. {match['name']}_10")
            return [_make(family, c, None, "linear", text) for c in spec.default_cutoffs]
        return [_make(family, None, None, "linear", text)]
    match = _IR_STYLE.match(text)
    if match:
        family = _family_lookup().get(match["family"].lower())
        if family is not None:
            rel, gain = _parse_params(text, match["params"] or "")
            cutoff = int(match["cutoff"]) if match["cutoff"] else None
            return [_make(family, cutoff, rel, gain, text)]
    raise _unknown(text)


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse several names (or pass :class:`Measure` values through), dropping repeats, in order."""
    if isinstance(names, (str, Measure)):
        names = [names]
    out: list[Measure] = []
    for item in names:
        for m in ([item] if isinstance(item, Measure) else parse_measure(item)):
            if m not in out:
                out.append(m)
    if not out:
        raise UnknownMeasureError("no measures given")
    return out
