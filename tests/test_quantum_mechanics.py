"""Tests of vecampfit.quantum_mechanics against independent references.

References: the rotation matrix exp(-i theta J_y) built from the angular
momentum ladder operators and exponentiated by an mpmath eigendecomposition
at 40 digits; sympy's ``Rotation.d``; the symmetry relations and unitarity of
the d matrices; a brute-force enumeration of (L, S) for the allowed orbital
angular momenta.  Clebsch-Gordan coefficients and 3j symbols against sympy's
``CG`` and ``wigner_3j`` (exact squares and float values), their selection
rules, both orthogonality relations, and the Clebsch-Gordan series of the d
functions (which ties their phase conventions to those of :func:`d_function`).
"""

import functools
import itertools
import os
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from sympy.physics.quantum.spin import Rotation

from vecampfit import quantum_mechanics as qm
from vecampfit.model_compiler import compile_model

mpmath.mp.dps = 40
EPS64 = np.finfo(np.float64).eps
EPS32 = np.finfo(np.float32).eps
HALF = Fraction(1, 2)


def spins(two_j_max):
    """(two_j, two_m1, two_m2) for every j <= two_j_max / 2 and every m1, m2."""
    for two_j in range(two_j_max + 1):
        for two_m1 in range(-two_j, two_j + 1, 2):
            for two_m2 in range(-two_j, two_j + 1, 2):
                yield two_j, two_m1, two_m2


@functools.lru_cache(maxsize=None)
def j_y_eigensystem(two_j):
    """Eigenvalues and eigenvectors of J_y in the basis |j m>, m = j, j-1, ..., -j (index (j - m))."""
    n = two_j + 1
    j = mpmath.mpf(two_j) / 2
    jy = mpmath.zeros(n, n)
    for k in range(1, n):
        m = j - k  # J+ |j m> = sqrt((j - m)(j + m + 1)) |j m+1>, |j m+1> has index k - 1
        c = mpmath.sqrt((j - m) * (j + m + 1))
        # J_y = (J+ - J-) / (2i): <m+1|J_y|m> = c / (2i), <m|J_y|m+1> = -c / (2i)
        jy[k - 1, k] = c / mpmath.mpc(0, 2)
        jy[k, k - 1] = -c / mpmath.mpc(0, 2)
    return mpmath.eigh(jy)


def mp_d_matrix(two_j, theta):
    """d^j(theta)[j - m1, j - m2] = <j m1| exp(-i theta J_y) |j m2>, from the eigensystem of J_y."""
    e, v = j_y_eigensystem(two_j)
    n = two_j + 1
    phase = mpmath.diag([mpmath.exp(mpmath.mpc(0, -1) * mpmath.mpf(theta) * e[k]) for k in range(n)])
    u = v * phase * v.transpose_conj()
    return np.array([[float(mpmath.re(u[a, b])) for b in range(n)] for a in range(n)])


def index(two_j, two_m):
    return (two_j - two_m) // 2


THETAS = np.concatenate([np.linspace(-2 * np.pi, 2 * np.pi, 29), [0.0, np.pi, -np.pi, 1e-3, np.pi - 1e-3, 2.9]])


def reference_table(two_j_max, thetas):
    """{two_j: array (n_theta, 2j+1, 2j+1)} of reference d matrices."""
    return {two_j: np.array([mp_d_matrix(two_j, t) for t in thetas]) for two_j in range(two_j_max + 1)}


@pytest.fixture(scope="module")
def reference():
    return reference_table(12, THETAS)


def test_reference_matches_sympy():
    """The matrix-exponential reference and sympy's Wigner d agree (both independent of vecampfit)."""
    beta = sympy.Symbol("beta", real=True)
    cases = [(2, 2, 0), (1, 1, -1), (3, 1, -3), (4, -2, 2), (7, 3, -5), (12, 6, -4), (11, -9, 3)]
    for two_j, two_m1, two_m2 in cases:
        expr = Rotation.d(sympy.Rational(two_j, 2), sympy.Rational(two_m1, 2), sympy.Rational(two_m2, 2),
                          beta).doit()
        for t in (0.3, 2.1, -1.2):
            ref = complex(sympy.N(expr.subs(beta, t), 30))
            mine = mp_d_matrix(two_j, t)[index(two_j, two_m1), index(two_j, two_m2)]
            assert abs(ref.imag) < 1e-25
            assert mine == pytest.approx(ref.real, abs=1e-15), (two_j, two_m1, two_m2, t)


@pytest.mark.parametrize("two_j", range(0, 13))
def test_d_function_against_sympy_closed_forms(two_j):
    """A few (m1, m2) per j against sympy's Wigner d, float64 and float32."""
    beta = sympy.Symbol("beta", real=True)
    rng = np.random.default_rng(two_j)
    ms = list(range(-two_j, two_j + 1, 2))
    pairs = {(two_j, two_j), (-two_j, two_j)} | {tuple(rng.choice(ms, 2)) for _ in range(2)}
    theta = np.array([-2.5, -0.4, 0.0, 0.9, 2.0, 3.1])
    for two_m1, two_m2 in sorted(pairs):
        expr = Rotation.d(sympy.Rational(two_j, 2), sympy.Rational(two_m1, 2), sympy.Rational(two_m2, 2),
                          beta).doit()
        f = sympy.lambdify(beta, expr, "mpmath")
        ref = np.array([float(mpmath.re(f(mpmath.mpf(t)))) for t in theta])
        j, m1, m2 = Fraction(two_j, 2), Fraction(two_m1, 2), Fraction(two_m2, 2)
        np.testing.assert_allclose(qm.d_function(j, m1, m2, theta), ref, rtol=0, atol=32 * EPS64)
        out32 = qm.d_function(j, m1, m2, theta.astype(np.float32))
        assert out32.dtype == np.float32
        np.testing.assert_allclose(out32, ref, rtol=0, atol=64 * EPS32)


@pytest.mark.parametrize("method", ["auto", "sum", "recurrence"])
def test_d_function_all_quantum_numbers_up_to_j6(reference, method):
    """Every (j, m1, m2) with j <= 6, integer and half-integer, at float64 and float32."""
    theta32 = THETAS.astype(np.float32)
    ref32 = reference_table(12, theta32.astype(np.float64)) if method == "auto" else None
    worst64 = worst32 = 0.0
    for two_j, two_m1, two_m2 in spins(12):
        ref = reference[two_j][:, index(two_j, two_m1), index(two_j, two_m2)]
        j, m1, m2 = two_j / 2, two_m1 / 2, two_m2 / 2  # floats such as 1.5
        out = qm.d_function(j, m1, m2, THETAS, method=method)
        worst64 = max(worst64, np.max(np.abs(out - ref)) / EPS64)
        if ref32 is not None:
            out32 = qm.d_function(j, m1, m2, theta32, method=method)
            r32 = ref32[two_j][:, index(two_j, two_m1), index(two_j, two_m2)]
            worst32 = max(worst32, np.max(np.abs(out32 - r32)) / EPS32)
    print(f"d_function ({method}), j <= 6: largest absolute error {worst64:.1f} eps (float64)"
          + (f", {worst32:.1f} eps (float32, at the float32 angles)" if ref32 is not None else ""))
    assert worst64 < (64 if method == "recurrence" else 16)
    if ref32 is not None:
        assert worst32 < 16


def test_d_function_large_j_recurrence():
    """Above the sum's range the recurrence keeps the error small; the sum alone degrades."""
    thetas = np.array([0.2, 1.0, 1.7, 2.6, 3.0])
    worst = 0.0
    for two_j, two_m1, two_m2 in [(40, 0, 0), (40, 10, -6), (41, 21, 3), (30, -30, 28), (33, 1, -1), (24, 24, -24)]:
        ref = np.array([mp_d_matrix(two_j, t)[index(two_j, two_m1), index(two_j, two_m2)] for t in thetas])
        out = qm.d_function(two_j / 2, two_m1 / 2, two_m2 / 2, thetas)
        worst = max(worst, np.max(np.abs(out - ref)) / EPS64)
    print(f"d_function, j up to 41/2 (recurrence): largest absolute error {worst:.1f} eps (float64)")
    assert worst < 256


def test_cos_theta_form():
    """d_function_cos_theta(x) = d^j_{m1 m2}(arccos x) for every (j, m1, m2) with j <= 6."""
    x = np.concatenate([np.cos(THETAS[(THETAS >= 0) & (THETAS <= np.pi)]), [1.0, -1.0, 0.0, 1 - 1e-9, -0.9999]])
    ref = {two_j: np.array([mp_d_matrix(two_j, mpmath.acos(v)) for v in x]) for two_j in range(13)}
    x32 = x.astype(np.float32)
    ref32 = {two_j: np.array([mp_d_matrix(two_j, mpmath.acos(float(v))) for v in x32]) for two_j in range(13)}
    worst64 = worst32 = 0.0
    for two_j, two_m1, two_m2 in spins(12):
        a, b = index(two_j, two_m1), index(two_j, two_m2)
        out = qm.d_function_cos_theta(two_j / 2, two_m1 / 2, two_m2 / 2, x)
        worst64 = max(worst64, np.max(np.abs(out - ref[two_j][:, a, b])) / EPS64)
        out32 = qm.d_function_cos_theta(two_j / 2, two_m1 / 2, two_m2 / 2, x32)
        assert out32.dtype == np.float32
        worst32 = max(worst32, np.max(np.abs(out32 - ref32[two_j][:, a, b])) / EPS32)
    print(f"d_function_cos_theta, j <= 6: largest absolute error {worst64:.1f} eps (float64), "
          f"{worst32:.1f} eps (float32)")
    assert worst64 < 16
    assert worst32 < 16
    # Rounding excess of cos theta is clamped, not NaN; genuine excess raises.
    assert qm.d_function_cos_theta(1, 1, 1, 1 + EPS64) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="cos_theta"):
        qm.d_function_cos_theta(1, 1, 1, [0.5, 1.01])
    with pytest.raises(ValueError, match="cos_theta"):
        qm.d_function_cos_theta(1, 1, 1, [np.nan])


def test_symmetries_and_unitarity():
    """d_{m1 m2} = (-1)^(m1-m2) d_{m2 m1} = d_{-m2,-m1}; d(theta)^T d(theta) = I; d(-theta) = d(theta)^T."""
    theta = np.linspace(-3.0, 3.0, 13)
    worst_sym = worst_unit = 0.0
    for two_j in range(13):
        ms = range(-two_j, two_j + 1, 2)
        d = {(a, b): qm.d_function(Fraction(two_j, 2), Fraction(a, 2), Fraction(b, 2), theta)
             for a in ms for b in ms}
        for a, b in d:
            sign = -1 if ((a - b) // 2) % 2 else 1
            worst_sym = max(worst_sym, np.max(np.abs(d[a, b] - sign * d[b, a])),
                            np.max(np.abs(d[a, b] - d[-b, -a])))
            back = qm.d_function(Fraction(two_j, 2), Fraction(a, 2), Fraction(b, 2), -theta)
            worst_sym = max(worst_sym, np.max(np.abs(back - d[b, a])))
        for a in ms:
            for b in ms:
                s = sum(d[m, a] * d[m, b] for m in ms)
                worst_unit = max(worst_unit, np.max(np.abs(s - (1.0 if a == b else 0.0))))
    print(f"symmetry relations: largest deviation {worst_sym / EPS64:.1f} eps; "
          f"unitarity: {worst_unit / EPS64:.1f} eps (float64, j <= 6)")
    assert worst_sym < 32 * EPS64
    assert worst_unit < 64 * EPS64


def test_quantum_number_conventions():
    """Integers, floats such as 1.5, Fractions and numpy scalars give the same value."""
    theta = 0.8
    ref = qm.d_function(Fraction(3, 2), Fraction(1, 2), Fraction(-3, 2), theta)
    assert qm.d_function(1.5, 0.5, -1.5, theta) == ref
    assert qm.d_function(np.float64(1.5), np.float32(0.5), -1.5, theta) == ref
    assert qm.d_function(2, np.int64(1), 0, theta) == qm.d_function(2.0, 1.0, 0.0, theta)
    # Known closed forms: d^1_{10} = -sin/sqrt(2), d^{3/2}_{3/2,1/2} = -sqrt(3) (1 + cos) sin(theta/2) / 2
    assert qm.d_function(1, 1, 0, theta) == pytest.approx(-np.sin(theta) / np.sqrt(2), abs=2 * EPS64)
    assert qm.d_function(1.5, 1.5, 0.5, theta) == pytest.approx(
        -np.sqrt(3) * (1 + np.cos(theta)) * np.sin(theta / 2) / 2, abs=4 * EPS64)
    # Shapes and dtypes are kept; scalars give numpy scalars.
    t = np.linspace(0, 1, 12).reshape(3, 4)
    assert qm.d_function(2, 1, -1, t).shape == (3, 4)
    assert qm.d_function(2, 1, -1, t.astype(np.float32)).dtype == np.float32
    assert isinstance(qm.d_function(2, 1, -1, 0.3), np.float64)
    assert qm.d_function(2, 1, -1, [1, 2]).dtype == np.float64  # integer angles compute in float64


@pytest.mark.parametrize("args,message", [
    ((1, 0.5, 0, 0.1), "m1 = 1/2 is a half-integer but j = 1 is an integer"),
    ((0.5, 0.5, 1, 0.1), "m2 = 1 is an integer but j = 1/2 is a half-integer"),
    ((1, 2, 0, 0.1), r"\|m1\| must not exceed j"),
    ((1.5, 0.5, -2.5, 0.1), r"\|m2\| must not exceed j"),
    ((-1, 0, 0, 0.1), "j must be non-negative"),
    ((0.3, 0, 0, 0.1), "j must be an integer or half-integer"),
    ((1, 0.25, 0, 0.1), "m1 must be an integer or half-integer"),
    ((1, 0, float("nan"), 0.1), "m2 must be an integer or half-integer"),
])
def test_bad_quantum_numbers(args, message):
    with pytest.raises(ValueError, match=message):
        qm.d_function(*args)
    with pytest.raises(ValueError, match=message):
        qm.d_function_cos_theta(*args)


def test_bad_arguments():
    with pytest.raises(TypeError, match="j must be an integer or half-integer number"):
        qm.d_function("1", 0, 0, 0.1)
    with pytest.raises(TypeError, match="theta"):
        qm.d_function(1, 0, 0, np.array([1 + 1j]))
    with pytest.raises(ValueError, match="method"):
        qm.d_function(1, 0, 0, 0.1, method="fast")


def test_block_routines_every_length(models_dir, model_cache, reference):
    """The block routines, cimported by a user's model, for several vector lengths and both precisions."""
    mods = compile_model(os.path.join(models_dir, "qm_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    n = 37  # not a multiple of any length: the padded tail block is exercised
    rng = np.random.default_rng(3)
    theta = rng.uniform(-2 * np.pi, 2 * np.pi, n)
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    x = np.cos(np.abs(theta) % np.pi)
    for length, mod in mods.items():
        for two_j, two_m1, two_m2 in [(0, 0, 0), (1, 1, -1), (4, 2, 0), (9, -3, 7), (12, 6, -6), (20, 4, -2)]:
            j, m1, m2 = two_j / 2, two_m1 / 2, two_m2 / 2
            expected = qm.d_function(j, m1, m2, theta)
            # The same routine, compiled with the model's flags (contractions and vectorization may change the rounding).
            np.testing.assert_allclose(mod.d_function(0, two_j, two_m1, two_m2, c, s), expected,
                                       rtol=0, atol=32 * EPS64)
            np.testing.assert_allclose(mod.d_function(2, two_j, two_m1, two_m2, c, s), expected,
                                       rtol=0, atol=32 * EPS64)
            np.testing.assert_allclose(mod.d_function(1, two_j, two_m1, two_m2, x, x),
                                       qm.d_function_cos_theta(j, m1, m2, x), rtol=0, atol=32 * EPS64)
            out32 = mod.d_function(0, two_j, two_m1, two_m2, c.astype(np.float32), s.astype(np.float32))
            assert out32.dtype == np.float32
            np.testing.assert_allclose(out32, expected, rtol=0, atol=256 * EPS32)
        # Invalid quantum numbers: NaN in every lane, no exception.
        for bad in [(-2, 0, 0), (2, 4, 0), (2, 0, -4), (2, 1, 1), (3, 1, 0)]:
            assert np.all(np.isnan(mod.d_function(0, *bad, c, s))), (length, bad)
            assert np.all(np.isnan(mod.d_function(1, *bad, x, x))), (length, bad)
            assert np.all(np.isnan(mod.d_function(2, *bad, c, s))), (length, bad)
        # An angular amplitude sum_lambda c_lambda d^1_{lambda 0}, lambda = -1, 0, 1
        coef = np.array([0.3, -1.2, 0.7])
        ref = sum(coef[k] * qm.d_function_cos_theta(1, k - 1, 0, x) for k in range(3))
        np.testing.assert_allclose(mod.angular_amplitude(x, 2, 0, coef), ref, rtol=0, atol=8 * EPS64)
        np.testing.assert_allclose(mod.angular_amplitude(x.astype(np.float32), 2, 0, coef.astype(np.float32)),
                                   ref, rtol=0, atol=32 * EPS32)


def brute_force_range(j0, p0, j1, p1, j2, p2, parity_conserved):
    """All L allowed by the triangle rules for some S (and parity), by enumeration."""
    allowed = []
    for l in range(0, 40):
        ok = False
        s = abs(j1 - j2)
        while s <= j1 + j2:
            if abs(s - l) <= j0 <= s + l and (s + l - j0) == int(s + l - j0):
                ok = True
            s += 1
        if ok and (not parity_conserved or p0 == p1 * p2 * (-1) ** l):
            allowed.append(l)
    return allowed


def test_angular_momentum_range_against_enumeration():
    two_spins = range(0, 9)
    count = 0
    for t0, t1, t2 in itertools.product(two_spins, repeat=3):
        j0, j1, j2 = Fraction(t0, 2), Fraction(t1, 2), Fraction(t2, 2)
        for p0, p1, p2 in itertools.product((1, -1), repeat=3):
            for conserved in (True, False):
                got = qm.angular_momentum_range(j0, p0, j1, p1, j2, p2, parity_conserved=conserved)
                allowed = brute_force_range(j0, p0, j1, p1, j2, p2, conserved)
                if not allowed:
                    assert got is None, (j0, p0, j1, p1, j2, p2, conserved)
                    continue
                count += 1
                lmin, lmax = got
                step = 2 if conserved else 1
                assert list(range(lmin, lmax + 1, step)) == allowed, (j0, p0, j1, p1, j2, p2, conserved)
    print(f"angular_momentum_range: {count} (spin, parity) combinations checked against enumeration")
    assert count > 1000


def test_angular_momentum_range_examples_and_bad_input():
    assert qm.angular_momentum_range(1, -1, 0, -1, 0, -1) == (1, 1)  # rho -> pi pi
    assert qm.angular_momentum_range(0, 1, 0, -1, 0, -1) == (0, 0)  # f0 -> pi pi
    assert qm.angular_momentum_range(0, -1, 0, -1, 0, -1) is None  # 0- -> pi pi forbidden
    assert qm.angular_momentum_range(0, -1, 0, -1, 0, -1, parity_conserved=False) == (0, 0)  # K -> pi pi
    assert qm.angular_momentum_range(0, -1, 1, -1, 0, -1, parity_conserved=False) == (1, 1)  # D -> K* pi
    assert qm.angular_momentum_range(1, 1, 1, -1, 0, -1) == (0, 2)  # a1 -> rho pi
    assert qm.angular_momentum_range(0.5, 1, 0.5, 1, 0, -1, False) == (0, 1)  # Lambda -> p pi
    assert qm.angular_momentum_range(1.5, 1, 0.5, 1, 0, -1) == (1, 1)  # Delta -> N pi
    assert qm.angular_momentum_range(1, 1, 0.5, 1, 0, -1) is None  # half-integer on one side only
    with pytest.raises(ValueError, match="j1 must be non-negative"):
        qm.angular_momentum_range(1, 1, -1, 1, 0, 1)
    with pytest.raises(ValueError, match="j0 must be an integer or half-integer"):
        qm.angular_momentum_range(0.7, 1, 0, 1, 0, 1)
    with pytest.raises(ValueError, match="p2 must be"):
        qm.angular_momentum_range(1, 1, 0, 1, 0, 0)
    with pytest.raises(TypeError, match="parity_conserved"):
        qm.angular_momentum_range(1, 1, 0, 1, 0, 1, parity_conserved="yes")


# ---------------------------------------------------------------------------
# Clebsch-Gordan coefficients and 3j symbols
# ---------------------------------------------------------------------------

def couplings(two_j1_max, two_j2_max):
    """(two_j1, two_m1, two_j2, two_m2, two_j, two_m) of every allowed coupling."""
    for two_j1 in range(two_j1_max + 1):
        for two_j2 in range(two_j2_max + 1):
            for two_j in range(abs(two_j1 - two_j2), two_j1 + two_j2 + 1, 2):
                for two_m1 in range(-two_j1, two_j1 + 1, 2):
                    for two_m2 in range(-two_j2, two_j2 + 1, 2):
                        if abs(two_m1 + two_m2) <= two_j:
                            yield two_j1, two_m1, two_j2, two_m2, two_j, two_m1 + two_m2


def halves(*two_values):
    return [Fraction(t, 2) for t in two_values]


def test_clebsch_gordan_against_sympy():
    """Every coefficient with j1 <= 9/2, j2 <= 2: exact signed square and
    correctly rounded float value against sympy's CG."""
    from sympy.physics.quantum.cg import CG
    n = 0
    worst = 0.0
    for two in couplings(9, 4):
        ref = CG(*(sympy.Rational(t, 2) for t in two)).doit()
        square = sympy.expand(ref**2)
        assert square.is_Rational, (two, ref)
        exact = Fraction(int(square.p), int(square.q)) * (1 if ref > 0 else -1 if ref < 0 else 0)
        args = halves(*two)
        assert qm.clebsch_gordan_signed_square(*args) == exact, two
        got = qm.clebsch_gordan(*args)
        ref_mp = mpmath.mpf(str(sympy.N(ref, 40)))
        assert got == float(ref_mp), two  # the nearest float64
        worst = max(worst, abs(got - float(ref_mp)))
        n += 1
    assert n == 2367, n
    assert worst == 0.0


def test_clebsch_gordan_phase_convention():
    """Condon-Shortley: <j1 j1 j2 (J - j1) | J J> > 0, and the exchange symmetry."""
    for two_j1, two_m1, two_j2, two_m2, two_j, two_m in couplings(9, 9):
        args = halves(two_j1, two_m1, two_j2, two_m2, two_j, two_m)
        if two_m1 == two_j1 and two_m == two_j:
            assert qm.clebsch_gordan(*args) > 0, args
        swapped = halves(two_j2, two_m2, two_j1, two_m1, two_j, two_m)
        sign = -1 if ((two_j1 + two_j2 - two_j) // 2) % 2 else 1
        assert qm.clebsch_gordan_signed_square(*args) == sign * qm.clebsch_gordan_signed_square(*swapped)
    # The PDG table (1 x 1/2): <1 0; 1/2 1/2 | 1/2 1/2> = -sqrt(1/3), <1 1; 1/2 -1/2 | 1/2 1/2> = sqrt(2/3).
    assert qm.clebsch_gordan_signed_square(1, 0, 0.5, 0.5, 0.5, 0.5) == Fraction(-1, 3)
    assert qm.clebsch_gordan_signed_square(1, 1, 0.5, -0.5, 0.5, 0.5) == Fraction(2, 3)


@pytest.mark.parametrize("args", [
    (1, 1, 1, 0, 1, 0),          # m1 + m2 != M
    (1, 0, 1, 0, 1, 1),
    (1, 0, 1, 0, 3, 0),          # J > j1 + j2
    (2, 0, 0.5, 0.5, 0.5, 0.5),  # J < |j1 - j2|
    (1, 0, 0.5, 0.5, 1, 0.5),    # j1 + j2 + J not an integer
    (2.5, 0.5, 2, 0, 4, 0.5),
    (1, 2, 1, -1, 1, 1),         # |m1| > j1
    (1, 0, 1, 1, 0, 1),          # |M| > J
    (1, 0.5, 1, -0.5, 1, 0),     # m1 of the other kind than j1
    (1, 0, 1, 0, 1, 0),          # allowed by the rules, zero by Racah's sum
])
def test_clebsch_gordan_zero_by_selection_rules(args):
    assert qm.clebsch_gordan(*args) == 0.0
    assert qm.clebsch_gordan_signed_square(*args) == 0
    # A neighbour that the rules allow is not zero (the test can tell).
    assert qm.clebsch_gordan(2.5, 0.5, 2, 0, 3.5, 0.5) != 0.0


def test_clebsch_gordan_zero_whenever_m1_plus_m2_differs_from_m():
    for two_j1, two_m1, two_j2, two_m2, two_j, two_m in couplings(9, 4):
        for two_mm in range(-two_j, two_j + 1, 2):
            if two_mm != two_m:
                assert qm.clebsch_gordan(*halves(two_j1, two_m1, two_j2, two_m2, two_j, two_mm)) == 0.0


def test_clebsch_gordan_orthogonality():
    """sum_{m1 m2} <..|J M><..|J' M'> = delta_JJ' delta_MM' and
    sum_{J M} <m1 m2|J M><m1' m2'|J M> = delta_m1m1' delta_m2m2', for j1 <= 9/2, j2 <= 2."""
    worst = 0.0
    for two_j1 in range(10):
        for two_j2 in range(5):
            ms = [(a, b) for a in range(-two_j1, two_j1 + 1, 2) for b in range(-two_j2, two_j2 + 1, 2)]
            jm = [(j, m) for j in range(abs(two_j1 - two_j2), two_j1 + two_j2 + 1, 2)
                  for m in range(-j, j + 1, 2)]
            assert len(ms) == len(jm)
            c = np.array([[qm.clebsch_gordan(*halves(two_j1, a, two_j2, b, j, m)) for j, m in jm]
                          for a, b in ms])
            worst = max(worst, np.abs(c.T @ c - np.eye(len(jm))).max(),
                        np.abs(c @ c.T - np.eye(len(ms))).max())
    assert worst < 1e-14, worst


def test_clebsch_gordan_series_of_d_functions():
    """d^{j1}_{m1 m1'} d^{j2}_{m2 m2'} = sum_J <j1 m1 j2 m2|J M><j1 m1' j2 m2'|J M'> d^J_{M M'}:
    the coefficients have the phases of the module's d functions."""
    theta = 1.234
    worst = 0.0
    for two_j1, two_j2 in [(1, 1), (2, 1), (2, 2), (3, 2), (4, 3), (9, 4)]:
        for two_m1, two_m1p in itertools.product(range(-two_j1, two_j1 + 1, 2), repeat=2):
            for two_m2, two_m2p in itertools.product(range(-two_j2, two_j2 + 1, 2), repeat=2):
                lhs = (qm.d_function(*halves(two_j1, two_m1, two_m1p), theta)
                       * qm.d_function(*halves(two_j2, two_m2, two_m2p), theta))
                two_m, two_mp = two_m1 + two_m2, two_m1p + two_m2p
                rhs = 0.0
                for two_j in range(abs(two_j1 - two_j2), two_j1 + two_j2 + 1, 2):
                    if abs(two_m) <= two_j and abs(two_mp) <= two_j:
                        rhs += (qm.clebsch_gordan(*halves(two_j1, two_m1, two_j2, two_m2, two_j, two_m))
                                * qm.clebsch_gordan(*halves(two_j1, two_m1p, two_j2, two_m2p, two_j, two_mp))
                                * qm.d_function(*halves(two_j, two_m, two_mp), theta))
                worst = max(worst, abs(lhs - rhs))
    assert worst < 1e-14, worst


def test_wigner_3j_against_sympy():
    from sympy.physics.wigner import wigner_3j
    n = 0
    for two_j1, two_m1, two_j2, two_m2, two_j3, two_m in couplings(7, 4):
        two = (two_j1, two_j2, two_j3, two_m1, two_m2, -two_m)
        ref = wigner_3j(*(sympy.Rational(t, 2) for t in two))
        assert qm.wigner_3j(*halves(*two)) == float(mpmath.mpf(str(sympy.N(ref, 40)))), two
        n += 1
    assert n > 1000
    assert qm.wigner_3j(1, 1, 1, 1, 0, 0) == 0.0   # m1 + m2 + m3 != 0
    assert qm.wigner_3j(1, 1, 3, 1, -1, 0) == 0.0  # triangle


def test_clebsch_gordan_arguments():
    ref = qm.clebsch_gordan(Fraction(3, 2), Fraction(1, 2), 1, -1, Fraction(1, 2), Fraction(-1, 2))
    assert qm.clebsch_gordan(1.5, 0.5, 1, -1, 0.5, -0.5) == ref
    assert qm.clebsch_gordan(np.float64(1.5), np.float32(0.5), np.int64(1), -1.0, 0.5, -0.5) == ref
    assert isinstance(ref, float) and isinstance(qm.wigner_3j(1, 1, 0, 1, -1, 0), float)
    with pytest.raises(ValueError, match="j1 must be non-negative"):
        qm.clebsch_gordan(-1, 0, 1, 0, 1, 0)
    with pytest.raises(ValueError, match="m2 must be an integer or half-integer"):
        qm.clebsch_gordan(1, 0, 1, 0.25, 1, 0)
    with pytest.raises(ValueError, match="j must be an integer or half-integer"):
        qm.clebsch_gordan_signed_square(1, 0, 1, 0, 0.3, 0)
    with pytest.raises(TypeError, match="m3 must be an integer or half-integer number"):
        qm.wigner_3j(1, 1, 1, 0, 0, "0")
    with pytest.raises(ValueError, match="j3 must be non-negative"):
        qm.wigner_3j(1, 1, -1, 0, 0, 0)
