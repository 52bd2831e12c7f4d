# Kernels behind vecampfit.high_energy_physics: the block routines of
# high_energy_physics.pxd over whole arrays, one <routine>_kernel each,
# generated during the build from tools/block_routines.py (see
# tools/generate_block_wrappers.py); below, the scalar Blatt-Weisskopf
# gradients and the K-matrix (denominator and amplitude chained in one loop,
# with 2x2 matrices).

# The include also defines the padded loads and stores (_load_padded*,
# _store_lanes*) that the loops below share with the generated ones.
include "vecampfit/_high_energy_physics_blocks.pxi"

from cython cimport floating

from vecampfit.block cimport (
    VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64,
)
from vecampfit.high_energy_physics cimport (
    blatt_weisskopf_inverse_gradient_scalar, blatt_weisskopf_inverse_gradient_q2_scalar,
    k_matrix_denominator_1, k_matrix_denominator_s_wave_1, k_matrix_denominator_2,
    k_matrix_denominator_s_wave_2, k_matrix_amplitude_1, k_matrix_amplitude_s_wave_1,
    k_matrix_amplitude_2, k_matrix_amplitude_s_wave_2,
)
from vecampfit.linear_algebra cimport (
    complex_matrix_2x2, complex_matrix_2x2_float32, complex_matrix_2x2_float64,
)


def blatt_weisskopf_inverse_gradient_kernel(double q, double r, int l):
    cdef double inv, dq, dr
    blatt_weisskopf_inverse_gradient_scalar(q, r, l, &inv, &dq, &dr)
    return inv, dq, dr


def blatt_weisskopf_inverse_gradient_q2_kernel(double q2, double r, int l):
    cdef double inv, dq2, dr
    blatt_weisskopf_inverse_gradient_q2_scalar(q2, r, l, &inv, &dq2, &dr)
    return inv, dq2, dr


cdef void _run_k_matrix(complex_vector *v, complex_matrix_2x2 *dm, int channels, bint s_wave,
                        const floating[:, ::1] k, const floating[:, ::1] rho,
                        const floating[:, ::1] nf, const floating[:, ::1] p,
                        floating[:, ::1] d_out, floating[:, ::1] a_out) noexcept nogil:
    # v[0..8]: rho1, rho2, n1, n2, p1, p2, a1, a2, D of one channel (scratch of the caller's precision)
    cdef Py_ssize_t nb, n = k.shape[1], b, m
    cdef floating k11[VECTOR_LENGTH]
    cdef floating k12[VECTOR_LENGTH]
    cdef floating k22[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        # Padding lanes: K = 0, rho = 0, n = 1, P = 0, so that D = I there.
        _load_padded(k11, k[0], b, m, 0)
        _load_padded(k12, k[1], b, m, 0)
        _load_padded(k22, k[2], b, m, 0)
        _load_padded_complex(&v[0], rho[0], rho[1], b, m, 0, 0)
        _load_padded_complex(&v[1], rho[2], rho[3], b, m, 0, 0)
        _load_padded_complex(&v[2], nf[0], nf[1], b, m, 1, 0)
        _load_padded_complex(&v[3], nf[2], nf[3], b, m, 1, 0)
        _load_padded_complex(&v[4], p[0], p[1], b, m, 0, 0)
        _load_padded_complex(&v[5], p[2], p[3], b, m, 0, 0)
        if channels == 1:
            # the 1x1 "matrix" D is v[8]
            if s_wave:
                k_matrix_denominator_s_wave_1(&v[8], k11, &v[0])
                k_matrix_amplitude_s_wave_1(&v[6], &v[8], &v[4])
            else:
                k_matrix_denominator_1(&v[8], k11, &v[0], &v[2])
                k_matrix_amplitude_1(&v[6], &v[8], &v[4], &v[2])
            _store_lanes_complex(d_out[0], d_out[1], &v[8], b, m)
        else:
            if s_wave:
                k_matrix_denominator_s_wave_2(dm, k11, k12, k22, &v[0], &v[1])
                k_matrix_amplitude_s_wave_2(&v[6], &v[7], dm, &v[4], &v[5])
            else:
                k_matrix_denominator_2(dm, k11, k12, k22, &v[0], &v[1], &v[2], &v[3])
                k_matrix_amplitude_2(&v[6], &v[7], dm, &v[4], &v[5], &v[2], &v[3])
            _store_lanes_complex(d_out[0], d_out[1], &dm.m11, b, m)
            _store_lanes_complex(d_out[2], d_out[3], &dm.m12, b, m)
            _store_lanes_complex(d_out[4], d_out[5], &dm.m21, b, m)
            _store_lanes_complex(d_out[6], d_out[7], &dm.m22, b, m)
            _store_lanes_complex(a_out[2], a_out[3], &v[7], b, m)
        _store_lanes_complex(a_out[0], a_out[1], &v[6], b, m)


def k_matrix_kernel(int channels, bint s_wave, const floating[:, ::1] k, const floating[:, ::1] rho,
                    const floating[:, ::1] nf, const floating[:, ::1] p, floating[:, ::1] d_out,
                    floating[:, ::1] a_out):
    """D = I - i K rho n^2 (or its S-wave form) and A = n D^-1 P.

    Rows: k (k11, k12, k22); rho, nf, p (Re 1, Im 1, Re 2, Im 2); d_out
    (Re/Im of D11, D12, D21, D22; only the first two for one channel); a_out
    (Re/Im of A1, A2).
    """
    cdef complex_vector_float32 v32[9]
    cdef complex_vector_float64 v64[9]
    cdef complex_matrix_2x2_float32 d32
    cdef complex_matrix_2x2_float64 d64
    with nogil:
        if floating is float:
            _run_k_matrix(&v32[0], &d32, channels, s_wave, k, rho, nf, p, d_out, a_out)
        else:
            _run_k_matrix(&v64[0], &d64, channels, s_wave, k, rho, nf, p, d_out, a_out)
