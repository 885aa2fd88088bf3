"""docs/guide/comparing.md lists the fields of every result type of pairedframe.stats: the list must be exact
(a reader was told every result had statistic, pvalue and confidence_interval; the sign-flip test has no
interval, the bootstrap no p-value, Tukey's HSD neither), and each public function returning a result must
be listed under its type."""

import dataclasses
import importlib
import pkgutil
import re
from pathlib import Path

import numpy as np

import pairedframe.stats

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "comparing.md"
LINE = re.compile(r"^- `(\w+Result)` \(([^)]*)\): (.*)$")


def _listed() -> dict[str, tuple[list[str], list[str]]]:
    text = GUIDE.read_text(encoding="utf-8")
    block = text.split("<!-- stats-result-fields")[1].split("<!-- end stats-result-fields -->")[0]
    out = {}
    for line in block.splitlines()[1:]:
        if not line.strip():
            continue
        m = LINE.match(line)
        assert m, f"unreadable line in the guide's result list: {line!r}"
        functions = re.findall(r"`([\w.]+)`", m.group(2))
        out[m.group(1)] = (functions, re.findall(r"`(\w+)`", m.group(3)))
    return out


def _stats_modules():
    for info in pkgutil.iter_modules(pairedframe.stats.__path__):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"pairedframe.stats.{info.name}")


def _public_returning_results() -> dict[str, set[str]]:
    """{result class name: {"module.function", ...}} from the public functions' return annotations."""
    found: dict[str, set[str]] = {}
    for mod in _stats_modules():
        short = mod.__name__.rsplit(".", 1)[1]
        for name, fn in vars(mod).items():
            if name.startswith("_") or not callable(fn) or getattr(fn, "__module__", None) != mod.__name__:
                continue
            ret = getattr(fn, "__annotations__", {}).get("return")
            if isinstance(ret, str) and ret.endswith("Result") and isinstance(fn, type(_listed)):
                found.setdefault(ret, set()).add(f"{short}.{name}")
    return found


def test_stats_result_types_have_exactly_the_fields_the_guide_lists():
    classes = {}
    for mod in _stats_modules():
        for name, obj in vars(mod).items():
            if isinstance(obj, type) and name.endswith("Result"):
                classes[name] = obj
    listed = _listed()
    assert listed, "the guide's list of result fields is empty"
    for name, (_, fields) in listed.items():
        cls = classes[name]
        if dataclasses.is_dataclass(cls):
            assert cls.__dataclass_params__.frozen, name
            assert [f.name for f in dataclasses.fields(cls)] == fields, name
        else:                                       # rbo's named tuple
            assert list(cls._fields) == fields, name


def test_every_public_stats_function_returning_a_result_is_listed_under_its_type():
    listed = _listed()
    for cls, functions in _public_returning_results().items():
        assert cls in listed, f"{cls} (returned by {sorted(functions)}) is not in the guide's list"
        names, _ = listed[cls]
        # the guide names the module once per line: "ttest.paired_t_test", then "paired_t_test_many"
        qualified, module = set(), None
        for n in names:
            module, fn = n.split(".") if "." in n else (module, n)
            qualified.add(f"{module}.{fn}")
        assert functions <= qualified, (cls, sorted(functions - qualified))


def test_results_of_calls_taking_alternative_record_it():
    from pairedframe.stats.bootstrap import bootstrap_mean, bootstrap_mean_many
    from pairedframe.stats.cluster import cluster_bootstrap_many
    from pairedframe.stats.randomization import sign_flip_test
    from pairedframe.stats.signflip_interval import sign_flip_interval
    from pairedframe.stats.studentized import studentized_bootstrap_many
    from pairedframe.stats.ttest import paired_t_test

    x = np.random.default_rng(0).normal(0.1, 1.0, 40)
    for alt in ("greater", "less"):
        assert bootstrap_mean(x, alternative=alt, n_resamples=99, seed=0).alternative == alt
        assert bootstrap_mean_many(x[:, None], alternative=alt, n_resamples=99, seed=0).alternative == alt
        assert studentized_bootstrap_many(x[:, None], alternative=alt, n_resamples=99, seed=0).alternative == alt
        assert cluster_bootstrap_many(x[:, None], np.arange(40) // 1, alternative=alt, n_resamples=99,
                                      seed=0).alternative == alt
        assert sign_flip_test(x, alternative=alt, n_resamples=99, seed=0).alternative == alt
        assert sign_flip_interval(x, alternative=alt, n_resamples=99, seed=0).alternative == alt
        assert paired_t_test(x, alternative=alt).alternative == alt
