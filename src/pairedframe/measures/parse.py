"""Parse measure names in ir_measures style (``nDCG@10``, ``AP(rel=2)@100``, ``RBP(p=0.8)``,
``nDCG(dcg='exp-log2')@10``) and trec_eval style (``ndcg_cut_10``, ``map``, ``P.5,10``,
``utility.2,-1,0,0``, ``all_trec``) into :class:`~pairedframe.measures.base.Measure` values."""

from __future__ import annotations

import ast
import difflib
import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pairedframe.errors import UnknownMeasureError, user_stacklevel
from pairedframe.measures._trec import cutoffs, doubles, not_in_trec_eval, read_params
from pairedframe.measures.param_text import cutoff_error
from pairedframe.measures.base import NAME_PARSER, REGISTRY, UNBOUNDED, Measure, TrecForm

# trec_eval's nicknames (measures.c), without runid (a header line, not a measure).
OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P")
ALL_TREC = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
            "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
            "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
            "num_nonrel_judged_ret")
SET = ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
       "set_map", "set_F")
ALL_PREFS = ("num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
             "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
             "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
PREFS = ("num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
         "prefs_avgjg")
QRELS_JG = ("num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
NICKNAMES = {"official": OFFICIAL, "all_trec": ALL_TREC, "set": SET, "all_prefs": ALL_PREFS, "prefs": PREFS,
             "qrels_jg": QRELS_JG}
#: Nicknames whose trec_eval output starts the summary with the ``runid`` line.
RUNID_NICKNAMES = frozenset(NICKNAMES) | {"runid"}

_BOOL = {"True": True, "False": False, "true": True, "false": False}


def _family_lookup() -> dict[str, str]:
    table: dict[str, str] = {}
    for key, spec in REGISTRY.items():
        for name in (key, *spec.aliases):
            table[name.lower()] = key
    return table


def _trec_forms() -> dict[str, tuple[str, TrecForm]]:
    """trec_eval name -> (family, form)."""
    return {form.name: (key, form) for key, spec in REGISTRY.items() for form in spec.trec}


def known_names() -> list[str]:
    """Example names of every family in both styles, for error messages and ``--help``."""
    names: list[str] = []
    for key, spec in sorted(REGISTRY.items()):
        at = "0.5" if spec.at != "cutoff" else "10"
        names.append(f"{key}@{at}" if spec.cutoff == "required" or spec.at != "cutoff" else key)
        if spec.cutoff == "optional":
            names.append(f"{key}@10")
        for form in spec.trec:
            names.append(f"{form.name}_10" if form.kind == "long_cutoffs" else form.name)
    return list(dict.fromkeys(names))


def _unknown(name: str, why: str = "") -> UnknownMeasureError:
    close = difflib.get_close_matches(name, known_names(), n=4, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known_names())}"
    return UnknownMeasureError(f"unknown measure {name!r}{(' (' + why + ')') if why else ''}{hint}")


def _bad_parameter(text: str, why: str) -> UnknownMeasureError:
    """A known measure with a parameter outside its domain: no close-match hint (the name is right)."""
    return UnknownMeasureError(f"measure {text!r}: {why}")


def _make(family: str, text: str, *, cutoff: int | None = None, rel: int | None = None, gain: str = "linear",
          gains: Any = None, judged_only: bool | None = None, params: dict | None = None,
          trec_label: str | None = None) -> Measure:
    spec = REGISTRY[family]
    params = dict(params or {})
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise _bad_parameter(text, cutoff_error(cutoff, family))
    if spec.at != "cutoff":
        if cutoff is not None:
            raise _unknown(text, f"{family}'s @ is its {spec.at} (a number such as {family}@0.5), not a cutoff")
        if spec.at not in params:
            raise _unknown(text, f"{family} needs its {spec.at}, e.g. {family}@0.5")
    elif spec.cutoff == "none" and cutoff is not None:
        raise _unknown(text, f"{family} takes no cutoff")
    elif spec.cutoff == "required" and cutoff is None:
        raise _unknown(text, f"{family} needs a cutoff, e.g. {family}@10")
    if rel is not None and not spec.uses_rel:
        if family == "NumRet":  # ir_measures: NumRet(rel=k) counts retrieved documents with grade >= k
            return _make("NumRelRet", text, rel=rel, judged_only=judged_only, trec_label=trec_label)
        raise _unknown(text, f"{family} does not use a relevance level (rel=)")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int) or rel < 0):
        raise _unknown(text, f"bad parameter rel={rel!r}: rel must be an integer >= 0 (negative grades mean "
                             "unjudged)")
    if (gain != "linear" or gains is not None) and not spec.uses_gain:
        raise _unknown(text, f"{family} has no gain parameter")
    if gain == "exp" and gains:
        raise _unknown(text, "give either dcg='exp-log2' or gains=, not both")
    for key, value in params.items():
        try:
            p = spec.param(key)
        except KeyError:
            raise _unknown(text, f"bad parameter {key!r}: {family} takes "
                                 f"{', '.join(_allowed(spec)) or 'no parameters'}") from None
        if not _valid(p.kind, value):
            raise _unknown(text, f"bad parameter {key}={value!r}: expected {p.kind}")
        why = p.problem(value)
        if why is not None:
            raise _bad_parameter(text, why)
    gain_map = _gains(gains, text)
    try:
        return Measure(family, cutoff, rel, gain, tuple(params.items()), gain_map, bool(judged_only),  # type: ignore[arg-type]
                       trec_label, judged_only_stated=judged_only is False)
    except (TypeError, ValueError) as exc:
        raise _unknown(text, str(exc)) from None


def _allowed(spec) -> list[str]:
    names = ["cutoff"] if spec.cutoff != "none" and spec.at == "cutoff" else []
    names += ["rel"] if spec.uses_rel else []
    names += ["dcg", "gains"] if spec.uses_gain else []
    return names + ["judged_only"] + [p.name for p in spec.params]


def _valid(kind: str, value: Any) -> bool:
    number = (int, float)
    if kind == "floats":
        return isinstance(value, (tuple, list)) and bool(value) and all(
            isinstance(v, number) and not isinstance(v, bool) for v in value)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, number) and not isinstance(value, bool)


def _gains(gains: Any, text: str) -> tuple[tuple[int, float], ...] | None:
    if gains is None:
        return None
    items = gains.items() if isinstance(gains, dict) else gains
    out = []
    for level, gain in items:
        if isinstance(level, bool) or not isinstance(level, int) or level < 0:
            raise _unknown(text, f"bad gains: grade {level!r} must be an integer >= 0")
        if isinstance(gain, bool) or not isinstance(gain, (int, float)):
            raise _unknown(text, f"bad gains: gain {gain!r} of grade {level} must be a number")
        if not math.isfinite(gain):  # negative and zero gains are fine (trec_eval m_ndcg.c allows them)
            raise _bad_parameter(text, f"bad gains: gain {gain!r} of grade {level} must be a finite number")
        out.append((level, float(gain)))
    return tuple(out)


# --- ir_measures style --------------------------------------------------------------------------

def _literal(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Name):  # nDCG(gain=exp): a bare word is a string
        return _BOOL.get(node.id, node.id)
    if isinstance(node, ast.Dict):  # gains={1: 3, 1: 9}: literal_eval would keep the last gain silently
        keys = [_literal(key, text) for key in node.keys if key is not None]
        twice = next((key for i, key in enumerate(keys) if key in keys[:i]), None)
        if twice is not None:
            raise _bad_parameter(text, f"duplicate grade {twice!r} in gains")
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise _unknown(text, "bad parameter: values must be literals such as 2, 0.8, 'exp-log2', True, "
                             "{1: 3, 2: 9}") from None


def _ir_style(text: str) -> Measure | None:
    """``Family(k=v,...)@at`` (also ``Family@at(k=v)``), as ir_measures writes measures; None when
    ``text`` is not of that shape or names no known family."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    at: Any = None
    kwargs: dict[str, Any] = {}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        right = node.right
        if isinstance(right, ast.Call) and isinstance(right.func, ast.Constant):  # nDCG@10(judged_only=True)
            kwargs.update({k.arg: _literal(k.value, text) for k in right.keywords if k.arg})
            if right.args:
                return None
            right = right.func
        if isinstance(right, ast.UnaryOp) and isinstance(right.op, (ast.USub, ast.UAdd)):  # P@-1, IPrec@-0.5
            right = ast.Constant(ast.literal_eval(right)) if isinstance(right.operand, ast.Constant) else right
        if not isinstance(right, ast.Constant) or isinstance(right.value, (bool, str, complex)):
            raise _unknown(text, "@ takes a number")
        at, node = right.value, node.left
    if isinstance(node, ast.Call):
        if node.args or any(k.arg is None for k in node.keywords):
            raise _unknown(text, "bad parameter: name each parameter, e.g. AP(rel=2)")
        kwargs.update({k.arg: _literal(k.value, text) for k in node.keywords})
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    family = _family_lookup().get(node.id.lower())
    if family is None:
        return None
    spec = REGISTRY[family]
    fields: dict[str, Any] = {"params": {}}
    if at is not None:
        if spec.at == "cutoff":
            if isinstance(at, float):
                raise _bad_parameter(text, cutoff_error(at, family))
            fields["cutoff"] = at
        else:
            fields["params"][spec.at] = at
    for key, value in kwargs.items():
        if key == "cutoff" and spec.at == "cutoff":
            fields["cutoff"] = value
        elif key == "rel":
            if not isinstance(value, int) or isinstance(value, bool):
                raise _unknown(text, f"bad parameter rel={value!r}: use rel=<int>")
            fields["rel"] = value
        elif key in ("gain", "dcg"):
            gain = {"linear": "linear", "log2": "linear", "exp": "exp", "exp-log2": "exp"}.get(value)
            if gain is None:
                raise _unknown(text, f"bad parameter {key}={value!r}: use dcg='log2' or dcg='exp-log2'")
            fields["gain"] = gain
        elif key == "gains":
            if not isinstance(value, dict):
                raise _unknown(text, "bad parameter gains: use gains={grade: gain, ...}")
            fields["gains"] = value
        elif key == "judged_only":
            if not isinstance(value, bool):
                raise _unknown(text, f"bad parameter judged_only={value!r}: use True or False")
            fields["judged_only"] = value
        else:
            fields["params"][key] = value
    return _make(family, text, **fields)


# --- trec_eval style ----------------------------------------------------------------------------

def _split_trec(text: str) -> tuple[str, TrecForm, str | None, str] | None:
    """(family, form, parameter text or None, separator) of a trec_eval-style name, or None."""
    forms = _trec_forms()
    if text in forms:
        return (*forms[text], None, "")
    if "." in text:
        name, params = text.split(".", 1)  # trec_eval splits -m at the first '.'
        if name in forms:
            return (*forms[name], params, ".")
    if "(" in text or "@" in text:  # ir_measures style (P_avgjg(rel=2)@10), never trec_eval's
        return None
    for name in sorted(forms, key=len, reverse=True):
        if text.startswith(name + "_") and len(text) > len(name) + 1:
            return (*forms[name], text[len(name) + 1:], "_")
    return None


def _trec_style(family: str, form: TrecForm, params: str | None, sep: str, text: str) -> list[Measure]:
    if form.kind == "single":
        if params is not None:
            raise _unknown(text, f"{form.name} takes no cutoff or parameters")
        return [_make(family, text)]
    if form.kind in ("long_cutoffs", "double_cutoffs"):
        if params is None:
            if not form.defaults:
                raise _unknown(text, f"{form.name} needs a cutoff, e.g. {form.name}_10")
            values = list(form.defaults)
        elif form.kind == "long_cutoffs":
            if sep == "_" and not re.fullmatch(r"\d+", params):
                raise _unknown(text, f"{form.name}_<k> takes a positive integer cutoff")
            values = sorted(read_params(text, cutoffs, params, form.name))
            if values[0] <= 0:  # trec_eval: "Negative cutoff detected"
                raise _bad_parameter(text, f"cutoff={values[0]} is out of range: a cutoff must be a positive "
                                           "integer")
        else:  # iprec_at_recall.inf: C's atof reads inf, which is no recall level
            values = sorted(read_params(text, doubles, params))
        if len(set(values)) != len(values):  # trec_eval refuses them too; the name itself is right
            raise _bad_parameter(text, f"duplicate cutoff {next(v for v in values if values.count(v) > 1):g}")
        spec = REGISTRY[family]
        if form.kind == "long_cutoffs":
            return [_make(family, text, cutoff=int(v)) for v in values]
        return [_make(family, text, params={spec.at: float(v)}) for v in values]
    if params is None:
        return [_make(family, text, **form.bare, trec_label=form.name)]
    fields = read_params(text, form.parse, params) if form.parse else {}
    return [_make(family, text, **fields, trec_label=f"{form.name}_{params}")]


def parse_measure(text: str) -> list[Measure]:
    """Parse one measure name; trec_eval's list forms (``P.5,10``, bare ``P``) and nicknames give several.

    Parameters
    ----------
    text : str
        ir_measures style ``Family(params)@k`` (``nDCG@10``, ``AP(rel=2)@100``,
        ``nDCG(dcg='exp-log2')@10``, ``nDCG(judged_only=True)@10``, ``IPrec@0.1``, ``RBP(p=0.8)``,
        ``SetF(beta=0.5)``, ``nDCG(gains={1: 3, 2: 9})``), or trec_eval style (``ndcg_cut_10``,
        ``map_cut_100``, ``P_10``, ``iprec_at_recall_0.10``, ``ndcg_cut.10,20``, ``P.5,10``,
        ``Rprec_mult.0.5``, ``utility.2,-1,0,0``, ``11pt_avg..25,.5``, ``ndcg.1=3,2=9``,
        ``rbp.p=0.8``, ``relstring.20``; a bare ``P``, ``recall``, ``ndcg_cut``, ... expands to
        trec_eval's default cutoffs), or a nickname: ``official`` (trec_eval's default set),
        ``all_trec``, ``set``, ``all_prefs`` and ``prefs`` (preference measures: judgments_format
        ``"prefs"`` or ``"qrels_prefs"``), ``qrels_jg`` (measures averaged over judgment groups:
        judgments_format ``"qrels_jg"``).

    Returns
    -------
    list of Measure
        In trec_eval's order for nicknames, ascending cutoffs for list forms.

    Raises
    ------
    UnknownMeasureError
        The name matches no family, or its cutoff/parameters are invalid; the message suggests
        close matches. A parameter outside its domain (``RBP(p=1.5)``: p in (0, 1); ``IPrec@1.5``:
        recall in [0, 1]; ``SetF(beta=-1)``: beta >= 0; ``Utility(weights=(1,2))``: 4 weights; a
        cutoff < 1; see each family's ``Param.domain``) is refused with a message naming the
        text, the parameter, its value and the allowed range, although trec_eval 10 computes
        meaningless numbers for most of them.  A trec_eval parameter with no number (``ndcg.1=abc``,
        ``relstring.x``: C reads 0) is refused naming it; a number followed by text (``P.5x``) is read
        as trec_eval reads it (P@5) with a warning.
    """
    if not isinstance(text, str):
        raise UnknownMeasureError(f"a measure name must be a string, got {type(text).__name__}")
    text = text.strip()
    if text in NICKNAMES:
        return [m for name in NICKNAMES[text] for m in parse_measure(name)]
    lacking = not_in_trec_eval(text)
    if lacking is not None:
        raise lacking
    split = _split_trec(text)
    if split is not None:
        return _trec_style(*split, text)
    measure = _ir_style(text)
    if measure is not None:
        return [measure]
    raise _unknown(text)


@dataclass
class _Marked:
    """A trec_eval family named on the command line: its first parameter list wins (trec_eval)."""

    name: str
    params: str | None = None
    bare: str | None = None     # the text that named it without parameters (``P``, ``official``), if any


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse several names (or pass :class:`Measure` values through), dropping repeats, in order.

    trec_eval's rule for its own syntax holds: a family named bare or through a nickname
    (``all_trec``) and with parameters (``relstring.20``) is evaluated once, with the parameters;
    the first parameter list given for a family wins, and a later one warns (``P.5`` then ``P.10``
    evaluates P_5 only: write ``P.5,10`` or ``P@5``, ``P@10``); a bare family whose default cutoffs
    the parameters drop warns too (``P`` and ``P.5``, ``official`` and ``P.7``: P_5 / P_7 only), and so does a
    bare parameter family (``rbp`` and ``rbp.p=0.8``: RBP(p=0.8) only; through a nickname no warning). ir_measures names are taken as given,
    and so are ir_measures measure objects (``nDCG@10``, ``AP(rel=2)``: by their names).
    """
    if isinstance(names, (str, Measure)):
        names = [names]
    if not isinstance(names, Iterable):
        raise TypeError(f"`names` must be a measure name or an iterable of them, got {type(names).__name__}")
    items: list[Measure | _Marked] = []
    marked: dict[str, _Marked] = {}
    for item in names:
        if isinstance(item, Measure):
            items.append(item)
            continue
        if type(item).__module__.split(".")[0] == "ir_measures":
            item = str(item)                 # an ir_measures measure object, e.g. nDCG@10 -> "nDCG@10"
        if not isinstance(item, str):
            raise UnknownMeasureError(f"a measure name must be a string or Measure, got {type(item).__name__}")
        text = item.strip()
        expanded = NICKNAMES.get(text, (text,))
        for name in expanded:
            split = _split_trec(name)
            if split is not None and (split[2] is None or split[3] == "."):
                form = split[1].name
                if form not in marked:
                    marked[form] = _Marked(form)
                    items.append(marked[form])
                if split[2] is None and marked[form].bare is None:
                    marked[form].bare = text
                if split[2] is not None and marked[form].params is None:
                    marked[form].params = split[2]
                elif split[2] is not None and not (set(parse_measure(name))
                                                   <= set(parse_measure(f"{form}.{marked[form].params}"))):
                    warnings.warn(
                        f"measure {name!r} is ignored: trec_eval evaluates the family {form!r} once, with the "
                        f"first parameter list given ({form}.{marked[form].params}); write "
                        f"{form}.{marked[form].params},{split[2]} (trec_eval's syntax) or one ir_measures name per "
                        f"cutoff (P@5, P@10, nDCG@10 ...) to get both", UserWarning, stacklevel=user_stacklevel())
            else:
                items.extend(parse_measure(name))
    out: list[Measure] = []
    for entry in items:
        if isinstance(entry, _Marked):
            text = entry.name if entry.params is None else f"{entry.name}.{entry.params}"
            parsed = parse_measure(text)
            _warn_replaced_defaults(entry, parsed)
        else:
            parsed = [entry]
        out.extend(m for m in parsed if m not in out)
    if not out:
        raise UnknownMeasureError("no measures given")
    return out


def _warn_replaced_defaults(entry: _Marked, parsed: list[Measure]) -> None:
    """Warn when a family named bare (its defaults: ``P``, ``rbp``, or through ``official``) and with parameters
    (``P.5``, ``rbp.p=0.8``) loses what bare named: trec_eval evaluates it with the parameters only."""
    if entry.bare is None or entry.params is None:
        return
    lost = [m for m in parse_measure(entry.name) if m not in parsed]
    if not lost:
        return
    via = "" if entry.bare == entry.name else f" (through {entry.bare!r})"
    cutoffs = _trec_forms()[entry.name][1].kind in ("long_cutoffs", "double_cutoffs")
    if not cutoffs and via:     # -m all_trec -m relstring.20: trec_eval's way to set one family's parameters
        return
    if cutoffs:
        union = sorted([*parsed, *lost], key=lambda m: m.at)
        both = (f"{entry.name}.{','.join(f'{m.at:g}' for m in union)} or one ir_measures name per cutoff "
                f"({', '.join(m.name for m in union[:3])} ...)")
    else:      # parameters that are no cutoff list (rbp.p=0.8, ndcg.1=0,2=1): one name per measure
        both = f"one ir_measures name per measure: {', '.join(m.name for m in [*lost, *parsed])}"
    warnings.warn(
        f"{entry.name!r} was named bare{via}, which means its default {'cutoffs' if cutoffs else 'parameters'}, and "
        f"as '{entry.name}.{entry.params}': trec_eval then evaluates the family with the parameters only, so "
        f"{', '.join(m.name for m in lost)} {'is' if len(lost) == 1 else 'are'} not computed; to get both, write {both}",
        UserWarning, stacklevel=user_stacklevel())


NAME_PARSER.append(parse_measure)


@lru_cache(maxsize=4096)
def value_range(name: str) -> tuple[float, float]:
    """``(low, high)`` of one query's value of the measure called ``name`` (:attr:`Measure.value_range`);
    ``(-inf, inf)`` for names that are not pairedframe measures (nothing is known about them)."""
    try:
        parsed = parse_measure(name)
    except ValueError:
        return UNBOUNDED
    ranges = [m.value_range for m in parsed] or [UNBOUNDED]
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


@lru_cache(maxsize=4096)
def higher_is_better(name: str) -> bool:
    """Whether larger values of the measure called ``name`` are better (False for ranks such as
    ``FirstRelRank``); True for names that are not pairedframe measures."""
    try:
        parsed = parse_measure(name)
    except ValueError:
        return True
    return all(m.spec.higher_is_better for m in parsed)


def ranks_runs(name: str) -> bool:
    """Whether the measure called ``name`` says which of two runs is better (its best mean is the best
    run's): False for counts of the judgments (NumQ, NumRel), and for what describes a run's output rather than
    its ranking (NumRet, NumNonRelJudgedRet; Judged, Unjudged, RBPResid: how much of it is judged); True for
    names that are not pairedframe measures."""
    try:
        parsed = parse_measure(name)
    except ValueError:
        return True
    return all(m.spec.ranks_runs and not m.spec.run_independent for m in parsed)


def run_independent(name: str) -> bool:
    """Whether the measure called ``name`` depends on the judgments only, never on the run (NumQ, NumRel,
    prefs_num_prefs_poss): two runs on the same queries cannot differ in it.  False for names that are not
    pairedframe measures."""
    try:
        parsed = parse_measure(name)
    except ValueError:
        return False
    return all(m.spec.run_independent for m in parsed)


@lru_cache(maxsize=4096)
def aggregate_of(name: str) -> str:
    """How trec_eval summarises the measure called ``name`` over queries: ``"mean"``, ``"gmean"`` (GMAP,
    GMBpref: the geometric mean of values floored at MIN_GEO_MEAN), ``"sum"`` (counts) or ``"none"``;
    ``"mean"`` for names that are not pairedframe measures."""
    try:
        parsed = parse_measure(name)
    except ValueError:
        return "mean"
    kinds = {m.spec.aggregate for m in parsed}
    return kinds.pop() if len(kinds) == 1 else "mean"
