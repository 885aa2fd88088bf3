"""Independent reference computations of RBO for the tests.

- :func:`ref_rbo_ext_exact`: eq. 32 of Webber, Moffat & Zobel (2010) written
  literally, in exact rational arithmetic (``p`` a :class:`fractions.Fraction`).
- :func:`ref_rbo_prefix_sum`: plain truncated RBO ``(1-p)/p sum_{d<=D} X_d/d p^d``
  of two explicit (long) lists, with set intersections at every depth.
- :func:`ref_rbo_bounds_bruteforce`: lower / upper bounds by *constructing* the
  worst and best continuations of the two prefixes and evaluating them to a
  depth where ``p^D`` is negligible -- no closed forms involved.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _overlap(S, L, d):
    return len(set(S[:d]) & set(L[:d]))


def ref_rbo_ext_exact(a, b, p: Fraction) -> Fraction:
    """Eq. 32 literally, exact.  ``a``, ``b`` non-empty, distinct ids."""
    S, L = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(S), len(L)
    X = {d: _overlap(S, L, d) for d in range(1, l + 1)}
    x_s, x_l = X[s], X[l]
    first = sum(Fraction(X[d], d) * p**d for d in range(1, l + 1))
    second = sum(Fraction(x_s * (d - s), s * d) * p**d for d in range(s + 1, l + 1))
    return (1 - p) / p * (first + second) + (Fraction(x_l - x_s, l) + Fraction(x_s, s)) * p**l


def ref_rbo_prefix_sum(a, b, p: float, depth: int) -> float:
    """(1-p)/p * sum_{d=1..depth} |a[:d] & b[:d]| / d * p^d, with math.fsum."""
    return (1 - p) / p * math.fsum(_overlap(a, b, d) / d * p**d for d in range(1, depth + 1))


def ref_rbo_bounds_bruteforce(a, b, p: float):
    """(min, max) by evaluating explicit worst / best continuations of the prefixes."""
    S, L = (list(a), list(b)) if len(a) <= len(b) else (list(b), list(a))
    D = int(math.ceil(math.log(1e-17) / math.log(p))) + len(S) + len(L) + 5
    # worst case: both continue with ids nobody else has
    S_min = S + [("fresh-S", i) for i in range(D)]
    L_min = L + [("fresh-L", i) for i in range(D)]
    # best case: S continues with L's unmatched ids in L's order, L with S's
    # unmatched ids in S's order, then both with the same fresh ids
    L_only = [x for x in L if x not in set(S)]
    S_only = [x for x in S if x not in set(L)]
    common = [("shared", i) for i in range(D)]
    S_max = S + L_only + common
    L_max = L + S_only + common
    lo = ref_rbo_prefix_sum(S_min, L_min, p, D)
    hi = ref_rbo_prefix_sum(S_max, L_max, p, D)
    return lo, hi
