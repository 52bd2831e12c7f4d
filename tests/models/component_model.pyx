# A model with components for the tests of the cached evaluation: in one
# variable m (GeV),
#
#     A = X_1 + A2 e^(i P2) X_2 + (R3 + i I3) X_3,   S = |A|^2,
#     X_k = 1 / (Mk^2 - m^2 - i Mk Gk) (k = 1, 2),   X_3 = 1,
#
# P2 in degrees.  Parameters M1, G1, M2, G2, A2, P2, R3, I3.  X_1 depends on
# M1 and G1, X_2 on M2 and G2, X_3 on nothing: each has a function alone, so
# that fits with masses or widths free recompute only the one that moved.
from cython cimport floating
from libc.math cimport M_PI, cos, sin

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport (component_description, model_description,
                                       single_component_functions)

PARAMETERS = ("M1", "G1", "M2", "G2", "A2", "P2", "R3", "I3")

cdef enum:
    N_PARAMETERS = 8
    N_COMPONENTS = 3
    # Parameter buffer: per resonance m0^2, m0 G; then c2 and c3.
    PB_C2_RE = 4
    PB_C2_IM = 5
    PB_C3_RE = 6
    PB_C3_IM = 7
    PARAMETER_BUFFER_SIZE = 8


cdef void fill(floating *pb, const floating *p, const double *constants) noexcept nogil:
    cdef double phi = p[5] * M_PI / 180
    pb[0] = p[0] * p[0]
    pb[1] = p[0] * p[1]
    pb[2] = p[2] * p[2]
    pb[3] = p[2] * p[3]
    pb[PB_C2_RE] = p[4] * cos(phi)
    pb[PB_C2_IM] = p[4] * sin(phi)
    pb[PB_C3_RE] = p[6]
    pb[PB_C3_IM] = p[7]


cdef inline void _bw(floating m2, floating m0sq, floating mg, floating *re,
                     floating *im) noexcept nogil:
    cdef floating a = m0sq - m2
    cdef floating d = 1 / (a * a + mg * mg)
    re[0] = a * d
    im[0] = mg * d


cdef inline void _bw_block(floating *out, const floating *m, floating m0sq,
                           floating mg) noexcept nogil:
    # X = 1 / (m0^2 - m^2 - i m0 G) of every lane (m0sq = m0^2, mg = m0 G, GeV^2):
    # Re X in out[0 .. L-1], Im X in out[L .. 2L-1].
    cdef int i
    for i in range(VECTOR_LENGTH):
        _bw(m[i] * m[i], m0sq, mg, &out[i], &out[VECTOR_LENGTH + i])


cdef inline void _one_block(floating *out) noexcept nogil:
    # X = 1 in every lane, laid out as in _bw_block.
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = 1
        out[VECTOR_LENGTH + i] = 0


cdef void components(floating *out, const void *events, const floating *p,
                     const void *parameter_buffer) noexcept nogil:
    cdef const floating *m = <const floating *> events
    cdef const floating *pb = <const floating *> parameter_buffer
    _bw_block(out, m, pb[0], pb[1])
    _bw_block(&out[2 * VECTOR_LENGTH], m, pb[2], pb[3])
    _one_block(&out[4 * VECTOR_LENGTH])


cdef void component_1(floating *out, const void *events, const floating *p,
                      const void *parameter_buffer) noexcept nogil:
    cdef const floating *pb = <const floating *> parameter_buffer
    _bw_block(out, <const floating *> events, pb[0], pb[1])


cdef void component_2(floating *out, const void *events, const floating *p,
                      const void *parameter_buffer) noexcept nogil:
    cdef const floating *pb = <const floating *> parameter_buffer
    _bw_block(out, <const floating *> events, pb[2], pb[3])


cdef void component_3(floating *out, const void *events, const floating *p,
                      const void *parameter_buffer) noexcept nogil:
    _one_block(out)


cdef void density(floating *out, const void *events, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating x[6 * VECTOR_LENGTH]
    cdef floating ar, ai
    cdef int i
    components(x, events, p, parameter_buffer)
    for i in range(VECTOR_LENGTH):
        ar = (x[i] + pb[PB_C2_RE] * x[2 * VECTOR_LENGTH + i] - pb[PB_C2_IM] * x[3 * VECTOR_LENGTH + i]
              + pb[PB_C3_RE])
        ai = (x[VECTOR_LENGTH + i] + pb[PB_C2_RE] * x[3 * VECTOR_LENGTH + i]
              + pb[PB_C2_IM] * x[2 * VECTOR_LENGTH + i] + pb[PB_C3_IM])
        out[i] = ar * ar + ai * ai


cdef void density_gradient(floating *out, floating *g, const void *events, const floating *p,
                           const void *parameter_buffer) noexcept nogil:
    # dS/dp = 2 Re(conj(A) dA/dp); dX/dm0 = -X^2 (2 m0 - i G), dX/dG = i m0 X^2.
    cdef const floating *m = <const floating *> events
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating x[6 * VECTOR_LENGTH]
    cdef floating ar, ai, x1r, x1i, x2r, x2i, s1r, s1i, s2r, s2i, dr, di, c2r, c2i
    cdef double deg = M_PI / 180
    cdef int i, L = VECTOR_LENGTH
    components(x, events, p, parameter_buffer)
    c2r = pb[PB_C2_RE]
    c2i = pb[PB_C2_IM]
    for i in range(VECTOR_LENGTH):
        x1r, x1i = x[i], x[L + i]
        x2r, x2i = x[2 * L + i], x[3 * L + i]
        ar = x1r + c2r * x2r - c2i * x2i + pb[PB_C3_RE]
        ai = x1i + c2r * x2i + c2i * x2r + pb[PB_C3_IM]
        out[i] = ar * ar + ai * ai
        s1r, s1i = x1r * x1r - x1i * x1i, 2 * x1r * x1i          # X1^2
        s2r, s2i = x2r * x2r - x2i * x2i, 2 * x2r * x2i          # X2^2
        # dA/dM1 = -X1^2 (2 M1 - i G1)
        dr = -(s1r * 2 * p[0] + s1i * p[1])
        di = -(s1i * 2 * p[0] - s1r * p[1])
        g[0 * L + i] = 2 * (ar * dr + ai * di)
        # dA/dG1 = i M1 X1^2
        g[1 * L + i] = 2 * (ar * (-p[0] * s1i) + ai * (p[0] * s1r))
        # dA/dM2 = c2 (-X2^2 (2 M2 - i G2))
        dr = -(s2r * 2 * p[2] + s2i * p[3])
        di = -(s2i * 2 * p[2] - s2r * p[3])
        g[2 * L + i] = 2 * (ar * (c2r * dr - c2i * di) + ai * (c2r * di + c2i * dr))
        dr, di = -p[2] * s2i, p[2] * s2r
        g[3 * L + i] = 2 * (ar * (c2r * dr - c2i * di) + ai * (c2r * di + c2i * dr))
        # dA/dA2 = e^(i P2) X2, dA/dP2 = i c2 X2 deg
        dr = (c2r * x2r - c2i * x2i) / p[4]
        di = (c2r * x2i + c2i * x2r) / p[4]
        g[4 * L + i] = 2 * (ar * dr + ai * di)
        g[5 * L + i] = 2 * (ar * (-p[4] * di) + ai * (p[4] * dr)) * deg
        g[6 * L + i] = 2 * ar
        g[7 * L + i] = 2 * ai


def vecampfit_model():
    desc = model_description(PARAMETERS, ("m",), {}, N_PARAMETERS, 1, PARAMETER_BUFFER_SIZE, 0,
                             density[double], density[float], density_gradient[double],
                             density_gradient[float], fill[double], fill[float])
    desc["components"] = component_description(
        ("X1", "X2", "X3"), (("fixed", 1.0, 0.0), ("polar_degrees", "A2", "P2"),
                             ("cartesian", "R3", "I3")),
        N_COMPONENTS, components[double], components[float],
        (("M1", "G1"), ("M2", "G2"), ()),
        [single_component_functions(component_1[double], component_1[float]),
         single_component_functions(component_2[double], component_2[float]),
         single_component_functions(component_3[double], component_3[float])])
    return desc
