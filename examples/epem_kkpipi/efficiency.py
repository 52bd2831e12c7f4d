r"""Efficiency parameterization of the e+e- -> K K-bar pi pi example (paper section 8.2), numpy form with gradient.

.. math::

    E(\Phi^{(lab)}, \Phi) = \mathrm{Sig}\big(\mathrm{Sig}^{-1}(\min[\max(E_0, \epsilon_1), 1 - \epsilon_1])
      + P_1(\Phi)\big),

    E_0 = \prod_{K_1, K_2, \pi_1, \pi_2} P_n(x_{p_t}, \cos\theta)\,
      T(\cos\theta, (\cos\theta)_{min}, k_1)\, T(-\cos\theta, -(\cos\theta)_{max}, k_2)\,
      T(x_{p_t}, (x_{p_t})_{min}, k_3),

with :math:`\mathrm{Sig}(x) = 1/(1 + e^{-x})`, :math:`\epsilon_1 = 10^{-15}`,
:math:`T(x, x_0, k) = \mathrm{Sig}(k (x - x_0))`,
:math:`P_n(x, c) = \sum_{i + j \le n} a_{ij} T_i(x) T_j(c)` (Chebyshev
polynomials, total order n: 4 for K+ K- pi+ pi-, 8 for KS KS pi+ pi-; one
polynomial and one set of thresholds for the four tracks, as the simulated
detector treats them alike), and :math:`P_1(\Phi)` the seven-dimensional
polynomial of ``vecampfit-polynomial-parameters 2 7 --minimum-order=1
--preprocessor-order`` (monomial basis in the normalized variables of
:func:`common.normalized_phi`, terms of order 1 and 2, the active order 1:
the order-2 coefficients are parameters fixed at 0, as the paper's code
includes them and uses the first order only).  Variables are those of the
generator level.

:math:`x_{p_t} = 2 p_t / p_{max} - 1` maps :math:`p_t \in [0, p_{max}]` onto
[-1, 1] (the paper prints :math:`p_t/(2 p_{max}) - 1`, which would use a
quarter of the Chebyshev range; we take the linear map onto [-1, 1]).  With
one polynomial for all tracks, :math:`p_{max}` is common: the largest track
momentum at the point, that of a pion recoiling against the minimum mass
:math:`2 m_K + m_\pi` of the other three particles.

The likelihood (normalization "none" of the fitter) is, per MC event with
weight :math:`w` (:math:`w = R` for the data efficiency, 1 for the MC
efficiency),
:math:`-2 \ln g(E/w)` if reconstructed and :math:`-2 \ln[1 - g(E/w)]` if not:
the density of an event is :math:`f = r\, g(E/w) + (1 - r)[1 - g(E/w)]`
with :math:`r` the reconstructed flag and the protection function

.. math::

    g(x) = \begin{cases} \epsilon_1, & x < \epsilon_1,\\ x, & \epsilon_1 \le x < 1 - \epsilon_2,\\
      1 - \epsilon_2 + \frac{\epsilon_2 [x - (1 - \epsilon_2)]}{\epsilon_2 + [x - (1 - \epsilon_2)]},
      & x \ge 1 - \epsilon_2, \end{cases}\qquad \epsilon_2 = 10^{-5}.

The gradient: with :math:`u = \mathrm{Sig}^{-1}(E_0)`,
:math:`\partial E/\partial \theta = E (1 - E) [\partial u / \partial\theta + \partial P_1/\partial\theta]`,
:math:`\partial u/\partial\theta = \frac{1}{1 - E_0} \sum_f \partial \ln(\text{track factor}_f)/\partial\theta`
(0 where :math:`E_0` is clipped),
:math:`\partial \ln T/\partial x_0 = -k (1 - T)`,
:math:`\partial \ln T / \partial k = (x - x_0)(1 - T)`.
"""

import numpy as np

import common_kkpipi as common
import model_kkpipi as model
from vecampfit import kinematics
from vecampfit import mathematical_functions as mf
from vecampfit.fitter.parameters import FitParameter, ParameterTable
from vecampfit.polynomial_parameters import exponents

EPSILON_1 = 1e-15
EPSILON_2 = 1e-5
#: Correction polynomial: generated order, active order, parameter prefix.
CORRECTION_ORDER, CORRECTION_ACTIVE_ORDER, CORRECTION_PREFIX = 2, 1, "EFFCOR"
THRESHOLD_NAMES = ("EFF_COS_MIN", "EFF_COS_MAX", "EFF_XPT_MIN", "EFF_K1", "EFF_K2", "EFF_K3")
TRACKS = common.PARTICLES
#: Event fields: per track x_pt and cos(theta), the seven normalized Phi,
#: the reconstructed flag and the weight.
EVENT_FIELDS = (tuple(f"{v}_{t}" for t in TRACKS for v in ("x", "c"))
                + tuple(f"v{d}" for d in range(7)) + ("r", "w"))


def chebyshev_terms(order):
    """(i, j) with i + j <= order, by total order then descending i."""
    return [(i, s - i) for s in range(order + 1) for i in range(s, -1, -1)]


def correction_exponents():
    """Exponents of P_1 (the polynomial tool's order: total order, then
    descending lexicographic)."""
    return exponents(CORRECTION_ORDER, 7, minimum_order=1)


def parameter_names(point):
    """Parameters of the efficiency of a point, in order: P_n coefficients
    ``EFF_C_i_j``, the thresholds, the correction ``EFFCOR_e1_..._e7``."""
    return ([f"EFF_C_{i}_{j}" for i, j in chebyshev_terms(point.efficiency_order)]
            + list(THRESHOLD_NAMES)
            + [common.background_parameter_name(e, CORRECTION_PREFIX) for e in correction_exponents()])


def p_max(point):
    """Largest track momentum (GeV): a pion against 2 m_K + m_pi."""
    m = point.masses()
    return float(kinematics.decay_momentum(point.sqrt_s, m["pi1"], m["K1"] + m["K2"] + m["pi2"]))


def initial_parameters(point):
    """Parameter table with starting values near the simulated detector:
    a_00 = 0.9, the thresholds at -0.8, 0.8 and p_t = 0.1 GeV with slopes
    200 (k3 in x), the correction 0; order-2 correction terms fixed."""
    pm = p_max(point)
    start = {"EFF_C_0_0": 0.9, "EFF_COS_MIN": -0.8, "EFF_COS_MAX": 0.8,
             "EFF_XPT_MIN": 2 * 0.1 / pm - 1, "EFF_K1": 200.0, "EFF_K2": 200.0,
             "EFF_K3": 200.0 * pm / 2}
    steps = {"EFF_COS_MIN": 1e-3, "EFF_COS_MAX": 1e-3, "EFF_XPT_MIN": 1e-3, "EFF_K1": 5.0,
             "EFF_K2": 5.0, "EFF_K3": 5.0}
    out = []
    for name in parameter_names(point):
        step = steps.get(name, 1e-2)
        if name.startswith(CORRECTION_PREFIX):
            order = sum(int(k) for k in name.split("_")[1:])
            step = 1e-2 if order <= CORRECTION_ACTIVE_ORDER else 0.0
        out.append(FitParameter(name, start.get(name, 0.0), step))
    return ParameterTable(out, source=f"efficiency of {point.name}")


def event_fields(records, point, data_efficiency=False):
    """Efficiency event fields from MC records (generator-level momenta, the
    reconstructed flag, the weight R when ``data_efficiency``, else 1)."""
    gen = common.momenta_of(records, generator_level=True)
    pm = p_max(point)
    out = {}
    for t in TRACKS:
        p = gen[t]
        pt = np.hypot(p[:, 0], p[:, 1])
        out[f"x_{t}"] = 2 * pt / pm - 1
        out[f"c_{t}"] = p[:, 2] / np.linalg.norm(p[:, :3], axis=1)
    v = common.normalized_phi(model.phase_space_variables(gen), point)
    for d in range(7):
        out[f"v{d}"] = v[d]
    out["r"] = np.asarray(records["reconstructed"], dtype=np.float64)
    n = len(out["r"])
    out["w"] = (np.asarray(records["weight"], dtype=np.float64) if data_efficiency
                else np.ones(n))
    return out


def _chebyshev(x, order):
    return mf.chebyshev_basis(np.asarray(x, dtype=np.float64), order)


def _basis(x, order):
    """T_0..T_order at x, shape (order + 1, n)."""
    b = np.asarray(_chebyshev(x, order))
    return b if b.shape[0] == order + 1 else b.T


def protection(x):
    """g(x) and g'(x) (module description)."""
    x = np.asarray(x, dtype=np.float64)
    y = x - (1 - EPSILON_2)
    high = x >= 1 - EPSILON_2
    low = x < EPSILON_1
    ys = np.where(high, y, 0.0)
    g = np.where(low, EPSILON_1, np.where(high, 1 - EPSILON_2 + EPSILON_2 * ys / (EPSILON_2 + ys), x))
    dg = np.where(low, 0.0, np.where(high, EPSILON_2 ** 2 / (EPSILON_2 + ys) ** 2, 1.0))
    return g, dg


def efficiency(fields, params, point, gradient=False):
    r"""E(Phi_lab, Phi) at each event (and dE/dparams, (n_params, n)).

    Parameters
    ----------
    fields : dict
        :data:`EVENT_FIELDS`.
    params : array_like
        In the order of :func:`parameter_names`.
    point : config.Point
    gradient : bool
    """
    p = np.asarray(params, dtype=np.float64)
    terms = chebyshev_terms(point.efficiency_order)
    nc = len(terms)
    a = p[:nc]
    cmin, cmax, xmin, k1, k2, k3 = p[nc:nc + 6]
    cor = p[nc + 6:]
    n = len(fields["r"])
    order = point.efficiency_order
    log_e0 = np.zeros(n)
    # sign of the product of the polynomials (a negative E_0 is clipped to epsilon_1)
    sign = np.ones(n)
    dlog = np.zeros((nc + 6, n)) if gradient else None
    for t in TRACKS:
        x, c = fields[f"x_{t}"], fields[f"c_{t}"]
        bx, bc = _basis(x, order), _basis(c, order)
        basis = np.stack([bx[i] * bc[j] for i, j in terms])
        poly = a @ basis
        sign *= np.sign(poly)
        t1 = mf.logistic(k1 * (c - cmin))
        t2 = mf.logistic(k2 * (-c + cmax))
        t3 = mf.logistic(k3 * (x - xmin))
        with np.errstate(divide="ignore", invalid="ignore"):
            log_e0 += np.log(np.abs(poly)) + np.log(t1) + np.log(t2) + np.log(t3)
        if gradient:
            dlog[:nc] += basis / poly
            dlog[nc] += -k1 * (1 - t1)
            dlog[nc + 1] += k2 * (1 - t2)
            dlog[nc + 2] += -k3 * (1 - t3)
            dlog[nc + 3] += (c - cmin) * (1 - t1)
            dlog[nc + 4] += (cmax - c) * (1 - t2)
            dlog[nc + 5] += (x - xmin) * (1 - t3)
    e0 = sign * np.exp(log_e0)
    clipped = (e0 < EPSILON_1) | (e0 > 1 - EPSILON_1)
    e0c = np.clip(e0, EPSILON_1, 1 - EPSILON_1)
    u = np.log(e0c) - np.log1p(-e0c)
    v = np.stack([fields[f"v{d}"] for d in range(7)])
    exps = correction_exponents()
    cbasis = np.stack([np.prod([v[d] ** k for d, k in enumerate(e) if k], axis=0)
                       if sum(e) <= CORRECTION_ACTIVE_ORDER else np.zeros(n) for e in exps])
    z = u + cor @ cbasis
    e = mf.logistic(z)
    if not gradient:
        return e
    de = e * (1 - e)
    grad = np.empty((len(p), n))
    factor = np.where(clipped, 0.0, 1 / (1 - e0c))
    grad[:nc + 6] = de * factor * dlog
    grad[nc + 6:] = de * cbasis
    return e, grad


def efficiency_density(fields, params, point, gradient=False):
    r"""The density of the efficiency likelihood, f = r g(E/w) + (1 - r)(1 - g(E/w))."""
    r, w = fields["r"], fields["w"]
    if gradient:
        e, de = efficiency(fields, params, point, True)
    else:
        e = efficiency(fields, params, point)
    g, dg = protection(e / w)
    f = r * g + (1 - r) * (1 - g)
    if not gradient:
        return f
    return f, (2 * r - 1) * dg / w * de


def density(point, data_efficiency=False):
    """The efficiency density of a point for the fitter (Python form with gradient).

    Records are MC records (generate_kkpipi.py's ``mc_<point>.root``).
    """
    from vecampfit.fitter import Density
    return Density(lambda f, p: efficiency_density(f, p, point),
                   lambda f, p: efficiency_density(f, p, point, True),
                   parameters=parameter_names(point), event_fields=EVENT_FIELDS,
                   fill_event_buffer=lambda rec: event_fields(rec, point, data_efficiency),
                   name=f"efficiency {point.name}")


def density_cython(modules, point, precision="float64", vector_length=None,
                   data_efficiency=False):
    """The compiled efficiency density of a point (``efficiency_density.pyx``,
    compiled by :func:`common.compile_efficiency_density`) for the fitter."""
    from vecampfit.fitter import Density
    return Density.from_model(modules, precision, vector_length=vector_length,
                              model=f"order{point.efficiency_order}",
                              fill_event_buffer=lambda rec, const: event_fields(
                                  rec, point, data_efficiency),
                              name=f"efficiency {point.name}")
