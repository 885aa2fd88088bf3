"""The analysis plan file: a TOML plan parsed and checked once into a frozen :class:`Plan` (the options
record of :func:`pairedframe.analyze`; every error names the plan key).

Plan keys (TOML)
----------------
Top level: ``confidence_level`` (in (0.5, 1); the tests' level is ``alpha = 1 - confidence_level``;
the older key ``alpha`` is refused, naming it), ``margin`` (> 0, in the units of the measures), ``seed`` (int >= 0),
``n_resamples`` (int >= 2); optional ``title``, ``power`` (default 0.8), ``resampling_unit``
(``"cluster"`` or ``"query"``; default ``"cluster"`` when the results have a ``cluster`` column, else
``"query"``).  ``[systems]``: ``baseline`` and ``candidate``, exact system names.  ``[[endpoints]]``
(at least one): ``measure`` (a measure name of the results, e.g. ``nDCG@10``, ``AP``, ``RR`` or
``hit@10``), ``direction`` (``"higher is better"`` or ``"lower is better"``: the measure's own
direction, which ``favours`` follows; it must match the direction pairedframe knows for its measures
-- ``lower is better`` for ``nDCG@10`` is an error, never a silent reversal -- and is the only
source for a custom measure of a results table), ``role`` (``"primary"``
or ``"secondary"``); optional ``dataset`` (required when the results have several datasets),
``name``, ``margin`` (overrides the top-level margin).  Any other key is an error.
"""

from __future__ import annotations

import hashlib
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairedframe.io.endpoints import parse_hit_measure
from pairedframe.measures.parse import parse_measure
from pairedframe.errors import PlanError

__all__ = ["Endpoint", "Plan", "load_plan", "ROLES"]

_DIRECTIONS = {"higher is better": "higher is better", "higher": "higher is better",
               "lower is better": "lower is better", "lower": "lower is better"}
#: The endpoint roles; each is its own Holm family.
ROLES = ("primary", "secondary")
_TOP_KEYS = {"title", "confidence_level", "margin", "seed", "n_resamples", "power", "resampling_unit", "systems", "endpoints"}
_REQUIRED_TOP = ("confidence_level", "margin", "seed", "n_resamples", "systems", "endpoints")
_SYSTEM_KEYS = {"baseline", "candidate"}
_ENDPOINT_KEYS = {"name", "dataset", "measure", "direction", "role", "margin"}


@dataclass(frozen=True)
class Endpoint:
    """One pre-registered endpoint: a measure (on a dataset) with its direction and role."""

    name: str
    measure: str
    direction: str
    role: str
    margin: float
    dataset: str | None = None

    @property
    def hit_k(self) -> int | None:
        """``k`` of a ``hit@k`` endpoint, else None."""
        return parse_hit_measure(self.measure)


@dataclass(frozen=True)
class Plan:
    """A parsed analysis plan; build it with :func:`load_plan` or :meth:`Plan.from_toml`.

    Attributes
    ----------
    baseline, candidate : str
        Exact system names.
    endpoints : tuple of Endpoint
    confidence_level, margin : float
    seed, n_resamples : int
    power : float
    resampling_unit : str or None
        ``"cluster"``, ``"query"`` or None (decided by the presence of a ``cluster`` column).
    title : str
    sha256 : str
        SHA-256 (hex) of the plan file's bytes, as read.
    source : str
        Where the plan came from (a path or ``"<string>"``).
    text : str
        The plan text.
    """

    baseline: str
    candidate: str
    endpoints: tuple[Endpoint, ...]
    confidence_level: float
    margin: float
    seed: int
    n_resamples: int
    power: float = 0.8
    resampling_unit: str | None = None
    title: str = ""
    sha256: str = ""
    source: str = "<string>"
    text: str = field(default="", repr=False)

    @classmethod
    def from_toml(cls, text: str | bytes, *, source: str = "<string>") -> Plan:
        """Parse and validate a plan from TOML text or bytes (the hash is over the UTF-8 bytes).

        Raises
        ------
        PlanError
            Invalid TOML, a missing / unknown key or a bad value (the message names the key).
        """
        raw = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        try:  # utf-8-sig: a byte order mark, as Windows editors write, is not TOML's business
            doc = tomllib.loads(raw.decode("utf-8-sig"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise PlanError(f"plan {source}: not valid TOML: {exc}") from exc
        return _parse(doc, sha256=hashlib.sha256(raw).hexdigest(), source=source, text=raw.decode("utf-8-sig"))

    def as_dict(self) -> dict[str, Any]:
        """The plan's content (without its text) as plain data."""
        return {"title": self.title, "source": self.source, "sha256": self.sha256,
                "baseline": self.baseline, "candidate": self.candidate,
                "confidence_level": self.confidence_level,
                "margin": self.margin, "seed": self.seed, "n_resamples": self.n_resamples, "power": self.power,
                "resampling_unit": self.resampling_unit,
                "endpoints": [{"name": e.name, "dataset": e.dataset, "measure": e.measure, "direction": e.direction,
                               "role": e.role, "margin": e.margin} for e in self.endpoints]}


def load_plan(path: str | os.PathLike) -> Plan:
    """Read a plan file (TOML); its SHA-256 is computed over the file's bytes.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Plan

    Raises
    ------
    PlanError
        The file does not exist, is a directory, is not TOML, or the plan is invalid (names the key).
    """
    p = Path(path)
    if p.is_dir():      # not "not found": the path exists, but is no file
        raise PlanError(f"plan file {p} is a directory, not a file: a plan is one TOML file written before the "
                        "analysis (confidence_level, margin, seed, n_resamples, [systems] baseline and candidate, "
                        "[[endpoints]]; see examples/plan.toml)")
    if not p.is_file():
        raise PlanError(f"plan file not found: {p}")
    return Plan.from_toml(p.read_bytes(), source=str(p))


def _need(doc: dict, key: str, where: str) -> Any:
    if key not in doc:
        raise PlanError(f"plan is missing the key {where}{key}")
    return doc[key]


def _number(value: Any, key: str, *, low: float, high: float, open_low: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PlanError(f"plan key {key} must be a number, got {value!r}")
    ok = (value > low if open_low else value >= low) and value < high
    if not ok:
        raise PlanError(f"plan key {key} = {value!r} is out of range ({low}, {high})")
    return float(value)


def _integer(value: Any, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise PlanError(f"plan key {key} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _string(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise PlanError(f"plan key {key} must be a non-empty string, got {value!r}")
    return value


def _known_direction(measure: str) -> str | None:
    """The direction of a measure pairedframe knows (``hit@k`` included), else None: the plan's own
    ``direction`` is then the only word on it (a custom measure of a results table)."""
    if parse_hit_measure(measure) is not None:
        return "higher is better"
    try:
        parsed = parse_measure(measure)
    except ValueError:
        return None
    return "higher is better" if all(m.spec.higher_is_better for m in parsed) else "lower is better"


def _parse(doc: dict, *, sha256: str, source: str, text: str) -> Plan:
    if "alpha" in doc:
        raise PlanError("plan key alpha was renamed: write confidence_level = 1 - alpha (e.g. "
                        "confidence_level = 0.95 for alpha = 0.05)")
    unknown = sorted(set(doc) - _TOP_KEYS)
    if unknown:
        raise PlanError(f"plan has unknown key(s) {unknown}; allowed: {sorted(_TOP_KEYS)}")
    for k in _REQUIRED_TOP:
        _need(doc, k, "")
    confidence_level = _number(doc["confidence_level"], "confidence_level", low=0.5, high=1.0)
    margin = _number(doc["margin"], "margin", low=0.0, high=math.inf)
    seed = _integer(doc["seed"], "seed", 0)
    n_resamples = _integer(doc["n_resamples"], "n_resamples", 2)
    power = _number(doc.get("power", 0.8), "power", low=0.0, high=1.0)
    unit = doc.get("resampling_unit")
    if unit is not None and unit not in ("cluster", "query"):
        raise PlanError(f"plan key resampling_unit must be 'cluster' or 'query', got {unit!r}")
    title = doc.get("title", "")
    if not isinstance(title, str):
        raise PlanError(f"plan key title must be a string, got {title!r}")
    systems = doc["systems"]
    if not isinstance(systems, dict):
        raise PlanError("plan key systems must be a table: [systems] baseline = \"...\" candidate = \"...\"")
    unknown = sorted(set(systems) - _SYSTEM_KEYS)
    if unknown:
        raise PlanError(f"plan has unknown key(s) {['systems.' + u for u in unknown]}; allowed: systems.baseline, "
                        "systems.candidate")
    baseline = _string(_need(systems, "baseline", "systems."), "systems.baseline")
    candidate = _string(_need(systems, "candidate", "systems."), "systems.candidate")
    if baseline == candidate:
        raise PlanError(f"plan keys systems.baseline and systems.candidate name the same system {baseline!r}")
    eps = doc["endpoints"]
    if not isinstance(eps, list) or not eps or not all(isinstance(e, dict) for e in eps):
        raise PlanError("plan key endpoints must be a non-empty array of tables ([[endpoints]])")
    endpoints = []
    for i, e in enumerate(eps):
        where = f"endpoints[{i}]."
        unknown = sorted(set(e) - _ENDPOINT_KEYS)
        if unknown:
            raise PlanError(f"plan has unknown key(s) {[where + u for u in unknown]}; allowed: {sorted(_ENDPOINT_KEYS)}")
        measure = _string(_need(e, "measure", where), where + "measure")
        direction = _need(e, "direction", where)
        if direction not in _DIRECTIONS:
            raise PlanError(f"plan key {where}direction must be 'higher is better' or 'lower is better', "
                            f"got {direction!r}")
        role = _need(e, "role", where)
        if role not in ROLES:
            raise PlanError(f"plan key {where}role must be 'primary' or 'secondary', got {role!r}")
        dataset = e.get("dataset")
        if dataset is not None:
            dataset = _string(dataset, where + "dataset")
        m = _number(e["margin"], where + "margin", low=0.0, high=math.inf) if "margin" in e else margin
        name = _string(e.get("name", f"{dataset}/{measure}" if dataset else measure), where + "name")
        known = _known_direction(measure)
        if known is not None and known != _DIRECTIONS[direction]:
            raise PlanError(f"plan key {where}direction = {direction!r} for endpoint {name!r}: its measure "
                            f"{measure!r} is {known}; the direction states the measure's own direction and "
                            "cannot reverse it (to test the other way, swap systems.baseline and "
                            "systems.candidate)")
        endpoints.append(Endpoint(name=name, measure=measure, direction=_DIRECTIONS[direction], role=role,
                                  margin=m, dataset=dataset))
    names = [e.name for e in endpoints]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise PlanError(f"plan endpoints must be distinct; repeated endpoint name(s) {dups}")
    if not any(e.role == "primary" for e in endpoints):
        raise PlanError("plan has no endpoint with role = 'primary'")
    return Plan(baseline=baseline, candidate=candidate, endpoints=tuple(endpoints), confidence_level=confidence_level,
                margin=margin,
                seed=seed, n_resamples=n_resamples, power=power, resampling_unit=unit, title=title,
                sha256=sha256, source=source, text=text)
