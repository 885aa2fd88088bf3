"""Speed benchmarks: ``python benchmarks/speed --section NAME [options]`` (``--help`` lists the sections;
``--section NAME --help`` the section's options). Each prints ratios against a peer or the physical floor
measured in the same run; ``--output docs/results/<name>.md`` also writes the table for the docs."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _sections import run_section  # noqa: E402

SECTIONS = {
    "evaluate": "file -> per-query values: pairedframe vs pytrec_eval vs ranx vs the parse floor",
    "compare": "paired bootstrap / sign-flip kernels vs scipy and ranx",
    "spark": "Spark (local[2]) vs DuckDB vs Spark's own floor; bootstrap by join vs numpy",
    "duckdb_sql": "pf_evaluate in the DuckDB shell vs the streamed engine",
    "segments": "compare_segments: 10,000 segments, 10^6 queries",
    "clusters": "cluster bootstrap + sign-flip, 1,400 clusters x 5 queries",
    "adaptive_compare": "compare(resampling='adaptive') on hundreds of real comparisons",
    "interleaved": "a run file with scattered query lines vs grouped",
    "irregular": "run files valid for trec_eval but not simple (comments, extra columns, a duplicate) vs clean",
    "report_dl2021": "pairedframe report on the 63 DL-2021 runs vs evaluate",
    "table_dl2021": "pairedframe table on the 63 DL-2021 runs vs evaluate and pytrec_eval",
    "evaluate_table_dl2021": "evaluate -q -m all_trec on the 63 DL-2021 runs: --format table vs csv",
}

if __name__ == "__main__":
    run_section(Path(__file__).resolve().parent, SECTIONS, sys.argv[1:])
