"""The p-values docs/guide/comparing.md quotes for n equal positive deltas are what compare_pair gives."""

import re
import warnings

import numpy as np

import pairedframe as pf
from tests.conftest import REPO_ROOT

TEXT = " ".join((REPO_ROOT / "docs" / "guide" / "comparing.md").read_text(encoding="utf-8").split())


def _equal(n: int, **options):
    a = np.linspace(0.2, 0.6, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare_pair(a, a + 0.1, measure="nDCG@10", **options)


def test_equal_deltas_pvalues_quoted_in_comparing_md_match_compare_pair():
    first_better = int(re.search(r"`better` verdict at 95 % comes from (\d+) queries on", TEXT).group(1))
    assert _equal(first_better).verdict == "better" and _equal(first_better).pvalue == 2 / 2 ** first_better
    assert _equal(first_better - 1).verdict == "inconclusive"
    last_exact = int(re.search(r"up to (\d+) queries at the default 10,000", TEXT).group(1))
    assert _equal(last_exact).exact and _equal(last_exact).pvalue == 2 / 2 ** last_exact
    assert not _equal(last_exact + 1).exact
    k = int(re.search(r"(\d+)/10,001 for 14 queries", TEXT).group(1))
    assert _equal(14).pvalue == k / 10_001
    assert _equal(20).pvalue == 1 / 10_001
    assert _equal(20, test="t").pvalue == 2 / 2 ** 20
