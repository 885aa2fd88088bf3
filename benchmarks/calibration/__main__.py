"""Calibration on real data: ``python benchmarks/calibration [--section NAME ...] [options]``.

Without ``--section``, or with sections of the shared runner (``runner.py``: paired, clustered, unequal,
equivalence, ppi, segments, agreement; several may be named), the runner's options apply
(``--help``); any other section is one study run alone with its own options (``--section NAME --help``).
Every rate is printed with its Monte-Carlo standard error; ``--output docs/results/<name>.md`` also writes
the tables the docs include.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
import runner  # noqa: E402
from _sections import run_section  # noqa: E402

STUDIES = {
    "adaptive": "resampling='adaptive': FDR and power of certified BH decisions",
    "cluster_fpr": "false-positive rate of query- vs cluster-level tests on clustered queries",
    "edgeworth": "the Edgeworth step of the default cluster interval with few clusters",
    "tukey": "family-wise error of all-pairs comparisons: randomised Tukey HSD, Holm, raw",
    "ppi_dl19": "PPI++ on DL-2019 with LLM labels as the proxy and NIST labels as gold",
    "one_sided": "compare's one-sided bounds and tests (alternative='greater' / 'less') at 0.90 and 0.95",
    "one_sided_small_n": "compare's one-sided bounds with 5 ... 20 queries: default, bootstrap-t and t at 0.95",
    "clustered_skewed": "compare_clustered's two-sided intervals with strongly skewed (Exp(1) - 1) cluster effects",
    "clustered_one_sided": "compare_clustered's one-sided bounds and cluster sign-flip tests (real and skewed clusters)",
    "rank_sets": "pf.leaderboard's rank sets: simultaneous and marginal coverage of the true ranks on real runs",
    "small_n": "compare's default interval with 2 ... 10 queries: the t rule below MIN_BOOTSTRAP_N",
    "too_few": "compare's default when n_resamples is too few for the level: the capped interval",
}

#: Each name, however long, then its description.
WIDTH = max(map(len, STUDIES)) + 2


def main(argv: list[str]) -> None:
    at = argv.index("--section") if "--section" in argv else None
    study = argv[at + 1] if at is not None and at + 1 < len(argv) else None
    if study in STUDIES:
        run_section(HERE, STUDIES, argv)
    elif argv[:1] in (["-h"], ["--help"]):
        print(__doc__ + "\nstudies run alone:\n" + "\n".join(f"  {k:<{WIDTH}}{v}" for k, v in STUDIES.items()) + "\n")
        runner.main(argv)
    else:
        runner.main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
