"""Agreement of two orderings of the same items (systems): row-vectorised kernels.

Each function takes two arrays of scores ``X`` and ``Y`` of shape ``(rows, k)`` -- one row per
bootstrap resample, ``k`` items, higher score = ranked higher -- and returns one coefficient per row,
so a bootstrap distribution costs a few array operations instead of a Python loop per resample.

Definitions (``i``, ``j`` items; "``j`` above ``i`` in Y" means ``Y[j] > Y[i]`` strictly):

Kendall's tau_b
    ``S / sqrt((n0 - n1) (n0 - n2))`` with ``S = sum_{i<j} sign(X_i - X_j) sign(Y_i - Y_j)``,
    ``n0 = k (k - 1) / 2`` and ``n1`` / ``n2`` the pairs tied in X / Y; scipy.stats.kendalltau's
    default (variant "b").  NaN when either row is constant.
Spearman's rho
    Pearson correlation of the average ranks (scipy.stats.spearmanr).  NaN when a row is constant.
AP correlation tau_AP (Yilmaz, Aslam & Robertson 2008; ties: Urbano & Marrero 2017)
    Without ties ``tau_AP(X, Y) = 2 / (k - 1) * sum_{i not top} C_i / A_i - 1`` where ``A_i`` counts
    the items above ``i`` in the *estimated* ordering Y (``rank_i - 1``) and ``C_i`` those of them
    also above ``i`` in the *reference* ordering X.  The weights follow the estimated ordering, so
    the coefficient is asymmetric.  ``tau_ap`` is Urbano & Marrero's accuracy coefficient
    ``tauAP_a`` (X the true ranking, Y an estimate that may tie): the expected tau_AP when Y's ties
    are broken uniformly at random, in closed form.  An item in a tie group of Y of size ``g`` with
    ``s`` items above the group is equally likely at positions ``s + 1 .. s + g``: its ``C_i`` over
    the items above the group weighs ``(1/g) sum_{m=1..g} 1 / (s + m - 1)``, and the group's own
    pairs add ``(q/g) sum_{m=1..g-1} m / (s + m)`` per item, ``q = 1/2`` (a pair Y ties and X
    orders comes out in X's order half the time).  So a tie in Y that X breaks costs half a
    discordance, with the top weight of where the group sits: ``[.5, .4, .3, .2, .1]`` against
    ``[.5, .4, .3, .2, .2]`` gives 0.9375, not 1.  The paper defines ``tauAP_a`` for an X without
    ties (ircor refuses them); with ties in X as well, a pair X ties counts as concordant where Y
    ties it too (``q`` rises to 1 for such pairs: identical orderings give 1) and as not concordant
    where Y orders it -- the rule of one directional half of ``tauAP_b`` below -- so without ties in
    Y this is that half and without ties in X it is ``tauAP_a``.  NaN when X ties every item.
    ``tau_ap_symmetric`` is Urbano & Marrero's agreement coefficient ``tauAP_b`` (both orderings
    estimates that may tie; ircor's ``tauAP_b``): the mean of its half for (X, Y) and for (Y, X),
    where the half for (X, Y) is ``2 / |T| * sum_{i in T} C_i / A_i - 1`` with ``A_i`` the items
    strictly above ``i`` in Y (items tied in Y are never above each other), ``C_i`` those of them
    strictly above ``i`` in X (a pair tied in X is never concordant) and ``T = {i : A_i > 0}`` (the
    top group of Y is skipped).  NaN when either ordering is constant.  It is not the mean of
    ``tau_ap`` both ways: the halves skip the pairs their weighting ordering ties.
RBO of the orderings (Webber, Moffat & Zobel 2010)
    ``rbo_ext`` of the two orderings of all ``k`` items (scores descending).  Both lists hold the
    same ``k`` items, so eq. 32 reduces to
    ``(1 - p) / p * sum_{d=1..k} X_d / d * p^d + p^k`` with ``X_d`` the overlap at depth ``d``,
    computed as ``1 - (1 - p) / p * sum_d (1 - X_d / d) p^d`` (exactly 1 for identical orderings).
    Ties: the expected ``rbo_ext`` when every tie is broken uniformly at random, independently in
    the two orderings -- linear in ``X_d``, so it is the formula at ``E[X_d] = sum_i P_X(i, d)
    P_Y(i, d)``, where an item tied with ``g`` others-and-itself that has ``s`` items strictly above
    it is in the top ``d`` with probability ``clip((d - s) / g, 0, 1)``.  It depends on the scores
    only, never on the items' names or order (breaking ties by position did); without ties it is
    the plain ``rbo_ext``.

References
----------
Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika 33(3).
Yilmaz, E., Aslam, J. A. and Robertson, S. (2008). A new rank correlation coefficient for
information retrieval. SIGIR, 587-594.
Urbano, J. and Marrero, M. (2017). The treatment of ties in AP correlation. ICTIR.
Webber, W., Moffat, A. and Zobel, J. (2010). A similarity measure for indefinite rankings. TOIS 28(4).
"""

from __future__ import annotations

import numpy as np

from .resample import _check_2d

__all__ = ["kendall_tau_b_many", "spearman_rho_many", "tau_ap_many", "rbo_orderings_many", "orderings",
           "rank_correlation_tests", "agreement_coefficients_many", "leave_one_out_means", "tie_rounded",
           "COEFFICIENTS", "EXACT_MAX_ITEMS", "TIE_DIGITS"]

#: Rows handled at once by the (rows, k, k) pairwise kernels (memory knob; results do not depend on it).
#: 2**20 elements keeps the temporaries in cache: 3x faster than 2**23 at k = 63.
_PAIRWISE_ELEMENTS = 2**20
#: The coefficients of :func:`agreement_coefficients_many`, in order.
COEFFICIENTS = ("kendall_tau_b", "spearman_rho", "tau_ap", "tau_ap_symmetric", "rbo")


#: Means are compared to this many significant digits of the largest |mean| of their row (:func:`tie_rounded`).
TIE_DIGITS = 12


def tie_rounded(X, *, digits: int = TIE_DIGITS) -> np.ndarray:
    """Means rounded onto a grid ``10**(e - digits + 1)`` per row, ``e`` the decimal exponent of the row's
    largest ``|mean|``: the tie rule of the agreement coefficients.

    Means equal in exact arithmetic come out of float sums a few ulps apart (values added in another
    order, ``0.1 + 0.2`` beside ``0.15 + 0.15``); compared as they are, such ties are split and a rank
    coefficient counts a pair as concordant or discordant by rounding noise.  A sum of ``n`` values
    errs by about ``sqrt(n)`` ulps of the sum of their magnitudes (at most ``n``): far below
    ``10**-12`` for any query set, while means that differ by less are no evidence of an order.  One grid per row, not per
    value, so a mean that cancels to ``1e-17`` in place of 0 still ties with 0.

    Parameters
    ----------
    X : array_like, shape (rows, k) or (k,)
        Means of ``k`` systems (finite), one row per ordering.
    digits : int, default TIE_DIGITS (12)

    Returns
    -------
    ndarray, shape of ``X`` as 2-D
        Rounded means; the order of unequal rounded means is the order of the means (rounding is
        monotone), means within half a grid step of each other tie.  A row of zeros is unchanged.
    """
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    largest = np.abs(X).max(axis=1, keepdims=True)
    exponent = np.floor(np.log10(np.where(largest > 0, largest, 1.0)))
    step = 10.0 ** (exponent - (digits - 1))
    return np.round(X / step) * step


def _check_pair(X, Y) -> tuple[np.ndarray, np.ndarray]:
    X = np.atleast_2d(_check_2d(np.atleast_2d(X), "X"))
    Y = np.atleast_2d(_check_2d(np.atleast_2d(Y), "Y"))
    if X.shape != Y.shape:
        raise ValueError(f"`X` and `Y` must have the same shape (rows, k), got {X.shape} and {Y.shape}")
    if X.shape[1] < 2:
        raise ValueError(f"an ordering needs at least 2 items, got {X.shape[1]}")
    return X, Y


def _row_chunks(rows: int, k: int):
    step = max(1, _PAIRWISE_ELEMENTS // (k * k))
    for start in range(0, rows, step):
        yield slice(start, min(rows, start + step))


def kendall_tau_b_many(X, Y) -> np.ndarray:
    """Kendall's tau_b of each row of ``X`` with the same row of ``Y``.

    Parameters
    ----------
    X, Y : array_like, shape (rows, k)
        Scores of ``k`` items (finite).

    Returns
    -------
    ndarray, shape (rows,)
        In [-1, 1]; NaN for a row where X or Y is constant.  Equal to
        ``scipy.stats.kendalltau(X[r], Y[r]).statistic`` (variant "b").

    Raises
    ------
    ValueError
        Shapes differ, fewer than 2 items, or non-finite values.
    """
    X, Y = _check_pair(X, Y)
    k = X.shape[1]
    iu, ju = np.triu_indices(k, 1)
    n0 = k * (k - 1) / 2
    out = np.empty(X.shape[0])
    for sl in _row_chunks(X.shape[0], k):
        sx = np.sign(X[sl][:, iu] - X[sl][:, ju])
        sy = np.sign(Y[sl][:, iu] - Y[sl][:, ju])
        s = np.sum(sx * sy, axis=1)
        n1 = np.count_nonzero(sx == 0, axis=1)
        n2 = np.count_nonzero(sy == 0, axis=1)
        den = np.sqrt((n0 - n1) * (n0 - n2))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[sl] = np.where(den > 0, s / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(out, -1.0, 1.0)


def spearman_rho_many(X, Y) -> np.ndarray:
    """Spearman's rho (Pearson correlation of average ranks) of each row pair.

    Parameters
    ----------
    X, Y : array_like, shape (rows, k)

    Returns
    -------
    ndarray, shape (rows,)
        In [-1, 1]; NaN for a constant row.  Equal to ``scipy.stats.spearmanr(X[r], Y[r]).statistic``.

    Raises
    ------
    ValueError
        Shapes differ, fewer than 2 items, or non-finite values.
    """
    X, Y = _check_pair(X, Y)
    from scipy.stats import rankdata  # lazy: scipy.stats costs ~1 s at import

    rx = rankdata(X, axis=1)
    ry = rankdata(Y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    num = np.sum(rx * ry, axis=1)
    den = np.sqrt(np.sum(rx * rx, axis=1) * np.sum(ry * ry, axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(rho, -1.0, 1.0)


def tau_ap_many(reference, estimate, *, symmetric: bool = False) -> np.ndarray:
    """AP correlation of the ``estimate`` ordering against the ``reference`` ordering, per row.

    Parameters
    ----------
    reference, estimate : array_like, shape (rows, k)
        Scores; higher = ranked higher.  ``reference`` plays the "true" ranking (e.g. NIST labels),
        ``estimate`` the ranking under evaluation (e.g. LLM labels); the top-weighting follows
        ``estimate`` (Yilmaz et al. 2008; ``ircor::tauAP_a(x = reference, y = estimate)``).
    symmetric : bool, default False
        Urbano & Marrero's agreement coefficient ``tauAP_b`` instead (both orderings estimates; the
        mean of its two directional halves, module docstring).

    Returns
    -------
    ndarray, shape (rows,)
        In [-1, 1].  Default: Urbano & Marrero's accuracy coefficient ``tauAP_a`` (module docstring),
        which charges the estimate for every tie the reference breaks; NaN when the reference ties every
        item (no ordering to be accurate against), 0 when only the estimate does (a random ordering's
        expected value).  ``symmetric``: NaN when either row is constant.

    Raises
    ------
    ValueError
        Shapes differ, fewer than 2 items, or non-finite values.
    """
    R, E = _check_pair(reference, estimate)
    if symmetric:
        return (_tau_ap_half(R, E) + _tau_ap_half(E, R)) / 2.0
    out = np.full(R.shape[0], np.nan)
    tied = _has_ties(E)
    untied = ~tied & ~np.all(R == R[:, :1], axis=1)
    out[untied] = _tau_ap_half(R[untied], E[untied])     # no ties in the estimate: the plain formula, 3x faster
    if tied.any():
        out[tied] = _tau_ap_a_tied(R[tied], E[tied])
    return np.clip(out, -1.0, 1.0)


def _tau_ap_a_tied(R: np.ndarray, E: np.ndarray) -> np.ndarray:
    """``tauAP_a`` in closed form over the tie groups of E (module docstring), per row."""
    rows, k = R.shape
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, k + 1))])    # H[m] = 1 + 1/2 + ... + 1/m
    out = np.empty(rows)
    for sl in _row_chunks(rows, k):
        r, e = R[sl], E[sl]
        above = e[:, None, :] > e[:, :, None]                 # [row, i, j]: j above i in the estimate
        same_e = e[:, None, :] == e[:, :, None]               # j in i's tie group of the estimate (i too)
        same_r = r[:, None, :] == r[:, :, None]
        s = np.count_nonzero(above, axis=2)                   # items above i's group: it spans s+1 .. s+g
        g = np.count_nonzero(same_e, axis=2)
        c = np.count_nonzero(above & (r[:, None, :] > r[:, :, None]), axis=2)
        # term I: the group's positions are equally likely, so 1/(position - 1) averages to
        # (H[s+g-1] - H[s-1]) / g; the top group (s = 0) has no item above it
        first = np.where(s > 0, c * (harmonic[s + g - 1] - harmonic[np.maximum(s - 1, 0)]) / g, 0.0)
        # term II: the group's pairs in random order; the one at position s+1+m has m group items above,
        # each concordant with probability q: 1 for a pair the reference ties too, else 1/2
        both = np.count_nonzero(same_e & same_r, axis=2) - 1  # i's group mates the reference ties with i
        pairs = g * (g - 1) / 2.0
        tied_pairs = np.einsum("rij,rj->ri", same_e, both) / 2.0
        q = np.where(g > 1, 0.5 + tied_pairs / (2.0 * np.where(g > 1, pairs, 1.0)), 0.0)
        within = (g - 1) - s * (harmonic[s + g - 1] - harmonic[s])            # sum_{m=1}^{g-1} m / (s + m)
        total = (first + q * within / g).sum(axis=1)
        constant = np.all(r == r[:, :1], axis=1)
        out[sl] = np.where(constant, np.nan, 2.0 * total / (k - 1) - 1.0)
    return out


def _tau_ap_half(R: np.ndarray, E: np.ndarray) -> np.ndarray:
    """One directional half of ``tauAP_b`` (weights from E's tie groups, module docstring), per row."""
    out = np.empty(R.shape[0])
    for sl in _row_chunks(R.shape[0], R.shape[1]):
        r, e = R[sl], E[sl]
        above = e[:, None, :] > e[:, :, None]                 # [row, i, j]: j above i in the estimate
        concordant = above & (r[:, None, :] > r[:, :, None])
        a = np.count_nonzero(above, axis=2)
        c = np.count_nonzero(concordant, axis=2)
        counted = a > 0
        ratio = np.where(counted, c / np.where(counted, a, 1), 0.0)
        m = np.count_nonzero(counted, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[sl] = np.where(m > 0, 2.0 * ratio.sum(axis=1) / np.where(m > 0, m, 1) - 1.0, np.nan)
    return out


def orderings(X) -> np.ndarray:
    """Item positions sorted by score descending, ties by position (stable), per row.

    Parameters
    ----------
    X : array_like, shape (rows, k)

    Returns
    -------
    ndarray of int64, shape (rows, k)
        Row ``r`` lists item indices from first to last.
    """
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    return np.argsort(-X, axis=1, kind="stable")


def rbo_orderings_many(X, Y, *, p: float = 0.9) -> np.ndarray:
    """Extrapolated RBO of the two orderings (all ``k`` items each) of every row.

    Parameters
    ----------
    X, Y : array_like, shape (rows, k)
        Scores, higher ranked first; each row is turned into an ordering (ties: module docstring).
    p : float in (0, 1), default 0.9
        Persistence: depth ``d`` weighs ``(1 - p) p^(d - 1)``.

    Returns
    -------
    ndarray, shape (rows,)
        ``rbo_ext`` in [0, 1]; without ties it equals :func:`pairedframe.stats.rbo.rbo` of the two
        orderings (within float rounding, ~1e-15), with ties its mean over every way of breaking
        them (module docstring).

    Raises
    ------
    ValueError
        Shapes differ, fewer than 2 items, non-finite values, or ``p`` outside (0, 1).
    """
    X, Y = _check_pair(X, Y)
    if not (isinstance(p, (int, float)) and 0.0 < p < 1.0):
        raise ValueError(f"`p` must be in the open interval (0, 1), got {p!r}")
    rows, k = X.shape
    overlap = np.empty((rows, k))
    tied = _has_ties(X) | _has_ties(Y)
    overlap[~tied] = _overlap_untied(X[~tied], Y[~tied])
    overlap[tied] = _expected_overlap(X[tied], Y[tied])
    d = np.arange(1, k + 1, dtype=np.float64)
    # 1 - (1 - p) / p * sum_d (1 - X_d / d) p^d: the same sum, exactly 1 for identical orderings
    return np.clip(1.0 - (1.0 - p) / p * ((1.0 - overlap / d) @ p ** d), 0.0, 1.0)


def _has_ties(X: np.ndarray) -> np.ndarray:
    ordered = np.sort(X, axis=1)
    return (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)


def _overlap_untied(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """X_d, d = 1..k, of rows without ties: an item is in both top-d once d exceeds its deeper position."""
    rows, k = X.shape
    pos_x = np.empty((rows, k), dtype=np.int64)
    pos_y = np.empty((rows, k), dtype=np.int64)
    ar = np.broadcast_to(np.arange(k), (rows, k))
    np.put_along_axis(pos_x, orderings(X), ar, axis=1)
    np.put_along_axis(pos_y, orderings(Y), ar, axis=1)
    deepest = np.maximum(pos_x, pos_y)
    flat = (deepest + (np.arange(rows) * k)[:, None]).ravel()
    return np.cumsum(np.bincount(flat, minlength=rows * k).reshape(rows, k), axis=1).astype(np.float64)


def _expected_overlap(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """E[X_d], d = 1..k, with every tie broken uniformly at random, independently in X and Y."""
    out = np.empty(X.shape)
    k = X.shape[1]
    d = np.arange(1, k + 1, dtype=np.float64)[None, :, None]            # [row, d, item]
    for sl in _row_chunks(X.shape[0], k):
        inside = [np.clip((d - above[:, None, :]) / size[:, None, :], 0.0, 1.0)
                  for above, size in (_tie_spans(X[sl]), _tie_spans(Y[sl]))]
        out[sl] = (inside[0] * inside[1]).sum(axis=2)
    return out


def _tie_spans(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: how many items score strictly higher, and how many score the same (itself included)."""
    higher = (X[:, None, :] > X[:, :, None]).sum(axis=2)                # [row, i]: items above i
    same = (X[:, None, :] == X[:, :, None]).sum(axis=2)
    return higher.astype(np.float64), same.astype(np.float64)


def agreement_coefficients_many(A, B, *, higher_is_better: bool = True, rbo_p: float = 0.9) -> dict[str, np.ndarray]:
    """Every agreement coefficient of :data:`COEFFICIENTS` for each row pair of system means.

    Parameters
    ----------
    A, B : array_like, shape (rows, k)
        Means of the same ``k`` systems under the reference ``a`` and under ``b`` (one row per
        resample or leave-one-out set).
    higher_is_better : bool, default True
        False for measures where lower is better (FirstRelRank): the top-weighted tau_AP and RBO
        then see the negated means, so their orderings run best first.  tau_b and rho do not
        depend on it.
    rbo_p : float in (0, 1), default 0.9

    Returns
    -------
    dict of str to ndarray, shape (rows,)
        ``kendall_tau_b``, ``spearman_rho``, ``tau_ap`` (``tauAP_a``, ``a`` the reference),
        ``tau_ap_symmetric`` (``tauAP_b``) and ``rbo``; NaN where a row is constant (``tau_ap``: where
        ``a``'s is; see the kernels).

    Notes
    -----
    Tie rule: the means are compared after :func:`tie_rounded` (12 significant digits of each row's
    largest ``|mean|``), so means equal in exact arithmetic tie though float sums left them an ulp apart.
    """
    A, B = _check_pair(A, B)
    A, B = tie_rounded(A), tie_rounded(B)
    sign = 1.0 if higher_is_better else -1.0
    sa, sb = sign * A, sign * B
    return {"kendall_tau_b": kendall_tau_b_many(A, B), "spearman_rho": spearman_rho_many(A, B),
            "tau_ap": tau_ap_many(sa, sb), "tau_ap_symmetric": tau_ap_many(sa, sb, symmetric=True),
            "rbo": rbo_orderings_many(sa, sb, p=rbo_p)}


def leave_one_out_means(X) -> np.ndarray:
    """Column means of ``X`` without each row in turn.

    Parameters
    ----------
    X : array_like, shape (n, m)
        ``n >= 2`` units (queries) by ``m`` columns.

    Returns
    -------
    ndarray, shape (n, m)
        Row ``i`` = the column means of ``X`` with row ``i`` left out.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"`X` must be 2-D with at least 2 rows, got shape {X.shape}")
    return (X.sum(axis=0, keepdims=True) - X) / (X.shape[0] - 1)


#: Up to this many items, :func:`rank_correlation_tests` enumerates every ordering (8! = 40,320) for
#: exact permutation p-values; above it scipy's p-values are used.
EXACT_MAX_ITEMS = 8


def rank_correlation_tests(x, y) -> dict[str, tuple[float, float]]:
    """Kendall's tau_b and Spearman's rho of two score vectors, each with a two-sided p-value of
    "no association".

    Parameters
    ----------
    x, y : array_like, shape (k,)
        Scores of the same ``k >= 2`` items (finite).

    Returns
    -------
    dict
        ``{"kendall_tau_b": (statistic, pvalue), "spearman_rho": (statistic, pvalue)}``.  The
        statistics are :func:`kendall_tau_b_many` and :func:`spearman_rho_many` (exactly 1 when the
        rankings agree, -1 when reversed; NaN when either vector is constant, with a NaN p-value).
        With ``k <= EXACT_MAX_ITEMS`` (8) both p-values are exact permutation p-values:
        ``scipy.stats.permutation_test`` over all ``k!`` orderings of ``y`` against ``x`` (ties kept),
        two-sided as scipy (twice the smaller tail, at most 1).  So with 2 items the p-value is 1 and
        with 3 it is at least 1/3: few items cannot show an association.  Above 8 items: scipy's
        ``kendalltau`` (exact when there are no ties and ``k <= 33``, else its normal approximation)
        and ``spearmanr`` (the t approximation, which is anti-conservative for small ``k``: at
        ``k = 3`` it gives ``p = 0`` for ``rho = 1``).

    Raises
    ------
    ValueError
        Shapes differ, fewer than 2 items, or non-finite values.
    """
    X, Y = _check_pair(np.asarray(x, dtype=np.float64)[None, :], np.asarray(y, dtype=np.float64)[None, :])
    x, y = X[0], Y[0]
    from scipy import stats  # lazy: scipy.stats costs ~1 s at import

    out: dict[str, tuple[float, float]] = {}
    for name, kernel in (("kendall_tau_b", kendall_tau_b_many), ("spearman_rho", spearman_rho_many)):
        statistic = float(kernel(X, Y)[0])
        if np.isnan(statistic):
            out[name] = (statistic, float("nan"))
        elif len(x) <= EXACT_MAX_ITEMS:
            def against_x(permuted_y, axis=-1, kernel=kernel):
                permuted_y = np.atleast_2d(permuted_y)
                return kernel(np.broadcast_to(x, permuted_y.shape), permuted_y)

            res = stats.permutation_test((y,), against_x, permutation_type="pairings", vectorized=True,
                                         n_resamples=np.inf)
            out[name] = (statistic, float(res.pvalue))
        else:
            fallback = stats.kendalltau if name == "kendall_tau_b" else stats.spearmanr
            out[name] = (statistic, float(fallback(x, y).pvalue))
    return out
