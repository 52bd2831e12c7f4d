# Efficiency density of the e+e- -> K K-bar pi pi example (paper section 8.2)
# with its explicit gradient, in the fitter's model protocol; efficiency.py is
# the numpy reference and documents the formulas:
#
#   f = r g(E/w) + (1 - r)(1 - g(E/w)),  E = Sig(Sig^-1(clip(E0)) + P1(Phi)),
#   E0 = prod_tracks P_n(x, c) T(c, cmin, k1) T(-c, -cmax, k2) T(x, xmin, k3).
#
# P1 is the code emitted by
#   vecampfit-polynomial-parameters 2 7 --minimum-order=1 --preprocessor-order
#       --subroutine efficiency_correction_polynomial.pxd (and --gradient
#       efficiency_correction_polynomial_gradient.pxd) --name efficiency_correction
#       --prefix EFFCOR
# used as generated (common.compile_efficiency_density writes them into the
# model cache when it compiles this file: common.polynomial_code); compile
# with -DPOLYNOMIAL_ORDER=1 (the paper's active order; it does).
#
# Event block: efficiency.EVENT_FIELDS (x_pt and cos(theta) of the four
# tracks, the seven normalized Phi, the reconstructed flag r, the weight w).
# Two models, "order4" (K+ K- pi+ pi-) and "order8" (KS KS pi+ pi-): the
# Chebyshev order n is the model constant ORDER, the parameters are
# EFF_C_i_j (i + j <= n), the six thresholds and the 35 EFFCOR terms.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description
from vecampfit.mathematical_functions cimport chebyshev_basis, log_scalar, logistic_scalar
from vecampfit.polynomial_parameters import exponents

from efficiency_correction_polynomial cimport efficiency_correction
from efficiency_correction_polynomial_gradient cimport efficiency_correction_gradient

MAX_ORDER = 8
THRESHOLDS = ("EFF_COS_MIN", "EFF_COS_MAX", "EFF_XPT_MIN", "EFF_K1", "EFF_K2", "EFF_K3")
TRACKS = ("K1", "K2", "pi1", "pi2")
EVENT_FIELDS = (tuple(f"{v}_{t}" for t in TRACKS for v in ("x", "c"))
                + tuple(f"v{d}" for d in range(7)) + ("r", "w"))
CONSTANTS = {"ORDER": 4.0}


def chebyshev_terms(order):
    """(i, j), i + j <= order, by total order then descending i (efficiency.chebyshev_terms)."""
    return [(i, s - i) for s in range(order + 1) for i in range(s, -1, -1)]


def parameter_names(order):
    return tuple([f"EFF_C_{i}_{j}" for i, j in chebyshev_terms(order)] + list(THRESHOLDS)
                 + ["EFFCOR_" + "_".join(str(k) for k in e)
                    for e in exponents(2, 7, minimum_order=1)])


cdef enum:
    N_EVENT_FIELDS = 17
    N_CONSTANTS = 1
    N_CORRECTION = 35
    MAX_TERMS = 45          # (8 + 1)(8 + 2) / 2
    MAX_PARAMETERS = 86     # 45 + 6 + 35
    EV_V = 8                # first of the seven Phi
    EV_R = 15
    EV_W = 16
    # parameter buffer: order, number of terms, the term exponents i and j,
    # then the parameters as they are
    PB_ORDER = 0
    PB_NTERMS = 1
    PB_I = 2                # + term
    PB_J = 2 + MAX_TERMS
    PB_P = 2 + 2 * MAX_TERMS
    PARAMETER_BUFFER_SIZE = 2 + 2 * MAX_TERMS + MAX_PARAMETERS

cdef double EPSILON_1 = 1e-15
cdef double EPSILON_2 = 1e-5


cdef void fill_parameter_buffer(floating *pb, const floating *p,
                                const double *constants) noexcept nogil:
    cdef int order = <int>constants[0], nterms = (order + 1) * (order + 2) // 2
    cdef int s, i, k = 0
    pb[PB_ORDER] = order
    pb[PB_NTERMS] = nterms
    for s in range(order + 1):
        for i in range(s, -1, -1):
            pb[PB_I + k] = i
            pb[PB_J + k] = s - i
            k += 1
    for i in range(nterms + 6 + N_CORRECTION):
        pb[PB_P + i] = p[i]


cdef inline void _protection(floating x, floating *g, floating *dg) noexcept nogil:
    """g(x) and g'(x) (efficiency.protection)."""
    cdef floating y = x - (1 - <floating>EPSILON_2)
    if x < EPSILON_1:
        g[0] = EPSILON_1
        dg[0] = 0
    elif y < 0:
        g[0] = x
        dg[0] = 1
    else:
        g[0] = 1 - <floating>EPSILON_2 + <floating>EPSILON_2 * y / (<floating>EPSILON_2 + y)
        dg[0] = <floating>EPSILON_2 * <floating>EPSILON_2 / ((<floating>EPSILON_2 + y) * (<floating>EPSILON_2 + y))


cdef inline void _evaluate(floating *out, floating *grad, const floating *ev,
                           const floating *pb, bint with_gradient) noexcept nogil:
    cdef int order = <int>pb[PB_ORDER], nterms = <int>pb[PB_NTERMS]
    cdef const floating *a = pb + PB_P
    cdef const floating *thr = a + nterms
    cdef const floating *cor = thr + 6
    cdef floating cmin = thr[0], cmax = thr[1], xmin = thr[2], k1 = thr[3], k2 = thr[4], k3 = thr[5]
    cdef floating bx[(8 + 1) * VECTOR_LENGTH]
    cdef floating bc[(8 + 1) * VECTOR_LENGTH]
    cdef floating poly[VECTOR_LENGTH]
    cdef floating e0[VECTOR_LENGTH]
    cdef floating p1[VECTOR_LENGTH]
    cdef floating dlog[(MAX_TERMS + 6) * VECTOR_LENGTH]
    cdef floating dcor[N_CORRECTION * VECTOR_LENGTH]
    cdef floating x, c, t1, t2, t3, u, e, g, dg, f, scale, factor, r, w, e0c
    cdef int t, k, i, ti, tj, n = nterms + 6
    for i in range(VECTOR_LENGTH):
        e0[i] = 1
    if with_gradient:
        for i in range(n * VECTOR_LENGTH):
            dlog[i] = 0
    for t in range(4):
        chebyshev_basis(bx, ev + (2 * t) * VECTOR_LENGTH, order)
        chebyshev_basis(bc, ev + (2 * t + 1) * VECTOR_LENGTH, order)
        for i in range(VECTOR_LENGTH):
            poly[i] = 0
        for k in range(nterms):
            ti = <int>pb[PB_I + k]
            tj = <int>pb[PB_J + k]
            for i in range(VECTOR_LENGTH):
                poly[i] += a[k] * bx[ti * VECTOR_LENGTH + i] * bc[tj * VECTOR_LENGTH + i]
        for i in range(VECTOR_LENGTH):
            x = ev[(2 * t) * VECTOR_LENGTH + i]
            c = ev[(2 * t + 1) * VECTOR_LENGTH + i]
            t1 = logistic_scalar(k1 * (c - cmin))
            t2 = logistic_scalar(k2 * (cmax - c))
            t3 = logistic_scalar(k3 * (x - xmin))
            e0[i] = e0[i] * poly[i] * t1 * t2 * t3
            if with_gradient:
                dlog[(nterms + 0) * VECTOR_LENGTH + i] += -k1 * (1 - t1)
                dlog[(nterms + 1) * VECTOR_LENGTH + i] += k2 * (1 - t2)
                dlog[(nterms + 2) * VECTOR_LENGTH + i] += -k3 * (1 - t3)
                dlog[(nterms + 3) * VECTOR_LENGTH + i] += (c - cmin) * (1 - t1)
                dlog[(nterms + 4) * VECTOR_LENGTH + i] += (cmax - c) * (1 - t2)
                dlog[(nterms + 5) * VECTOR_LENGTH + i] += (x - xmin) * (1 - t3)
        if with_gradient:
            for k in range(nterms):
                ti = <int>pb[PB_I + k]
                tj = <int>pb[PB_J + k]
                for i in range(VECTOR_LENGTH):
                    dlog[k * VECTOR_LENGTH + i] += (bx[ti * VECTOR_LENGTH + i]
                                                    * bc[tj * VECTOR_LENGTH + i] / poly[i])
    if with_gradient:
        efficiency_correction_gradient(p1, dcor, ev + EV_V * VECTOR_LENGTH, cor)
    else:
        efficiency_correction(p1, ev + EV_V * VECTOR_LENGTH, cor)
    for i in range(VECTOR_LENGTH):
        e0c = e0[i]
        factor = 1 / (1 - e0c)
        if e0c < EPSILON_1:
            e0c = EPSILON_1
            factor = 0
        elif e0c > 1 - EPSILON_1:
            e0c = 1 - EPSILON_1
            factor = 0
        u = log_scalar(e0c) - log_scalar(1 - e0c)
        e = logistic_scalar(u + p1[i])
        r = ev[EV_R * VECTOR_LENGTH + i]
        w = ev[EV_W * VECTOR_LENGTH + i]
        _protection(e / w, &g, &dg)
        out[i] = r * g + (1 - r) * (1 - g)
        if with_gradient:
            scale = (2 * r - 1) * dg / w * e * (1 - e)
            for k in range(n):
                grad[k * VECTOR_LENGTH + i] = scale * factor * dlog[k * VECTOR_LENGTH + i]
            for k in range(N_CORRECTION):
                grad[(n + k) * VECTOR_LENGTH + i] = scale * dcor[k * VECTOR_LENGTH + i]


cdef void density(floating *out, const void *event_block, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    _evaluate(out, NULL, <const floating *>event_block, <const floating *>parameter_buffer, False)


cdef void density_gradient(floating *out, floating *gradient, const void *event_block,
                           const floating *p, const void *parameter_buffer) noexcept nogil:
    _evaluate(out, gradient, <const floating *>event_block, <const floating *>parameter_buffer,
              True)


def _description(order):
    names = parameter_names(order)
    return model_description(names, EVENT_FIELDS, {"ORDER": float(order)}, len(names),
                             N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             density[double], density[float],
                             density_gradient[double], density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])


def vecampfit_model():
    """Two models: "order4" and "order8" (the Chebyshev order of P_n)."""
    return {"order4": _description(4), "order8": _description(8)}
