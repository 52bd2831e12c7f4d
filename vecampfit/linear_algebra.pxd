# Block routines on vectors of 2x2 complex matrices (the paper's
# VECAMPFIT_LINEAR_ALGEBRA_#LENGTH#): LU decomposition with partial pivoting,
# determinant, solution of linear systems, inverse, products.
#
# A vector of L = VECTOR_LENGTH matrices is a struct of four complex vectors,
#     complex_matrix_2x2_float64 a:   a.m11, a.m12, a.m21, a.m22
# (row index first; lane i of each complex vector is matrix i).  The LU
# factors of A are kept in a complex_lu_2x2_* struct:
#     P A = L U,  L = [[1, 0], [l21, 1]],  U = [[u11, u12], [0, u22]],
# P the identity or the row swap, pivot[i] = 1 if rows were swapped in lane i
# and 0 otherwise (the pivot is the first-column entry with the larger
# |re| + |im|, as LAPACK's zgetrf does).
#
# Usage from a user's model, e.g. a two-channel K-matrix amplitude
# n [I - i K rho n^2]^-1 P:
#     cimport vecampfit.linear_algebra as la
#     from vecampfit.linear_algebra cimport complex_matrix_2x2_float64, complex_lu_2x2_float64
#     cdef complex_matrix_2x2_float64 m      # fill m.m11 ... m.m22 lane by lane
#     cdef complex_lu_2x2_float64 lu
#     cdef complex_vector_float64 p1, p2, x1, x2
#     la.lu_decompose(&lu, &m)
#     la.lu_solve(&x1, &x2, &lu, &p1, &p2)  # x = m^-1 p
# or la.solve(&x1, &x2, &m, &p1, &p2) in one call.
#
# Every routine may be called in place (an output may be an input).  Nothing
# here raises: a singular matrix gives a zero determinant and inf/NaN lanes
# in solutions and inverses (only in its own lane).  Complex divisions use
# |z|^2 without scaling (vectorizable), as in vecampfit.complex_vector: the
# entries must stay below about 1e150 (1e18 for float32) in magnitude.

cimport cython
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64


cdef struct complex_matrix_2x2_float32:
    complex_vector_float32 m11
    complex_vector_float32 m12
    complex_vector_float32 m21
    complex_vector_float32 m22

cdef struct complex_matrix_2x2_float64:
    complex_vector_float64 m11
    complex_vector_float64 m12
    complex_vector_float64 m21
    complex_vector_float64 m22

# A vector of 2x2 complex matrices of either precision.
ctypedef fused complex_matrix_2x2:
    complex_matrix_2x2_float32
    complex_matrix_2x2_float64

cdef struct complex_lu_2x2_float32:
    complex_vector_float32 u11
    complex_vector_float32 u12
    complex_vector_float32 l21
    complex_vector_float32 u22
    float pivot[VECTOR_LENGTH]

cdef struct complex_lu_2x2_float64:
    complex_vector_float64 u11
    complex_vector_float64 u12
    complex_vector_float64 l21
    complex_vector_float64 u22
    double pivot[VECTOR_LENGTH]

# LU factors of a vector of 2x2 complex matrices, either precision.
ctypedef fused complex_lu_2x2:
    complex_lu_2x2_float32
    complex_lu_2x2_float64


# ---------------------------------------------------------------------------
# Assignment and products
# ---------------------------------------------------------------------------

cdef inline void set_identity(complex_matrix_2x2 *out) noexcept nogil:
    """out = I in every lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.m11.re[i] = 1
        out.m11.im[i] = 0
        out.m12.re[i] = 0
        out.m12.im[i] = 0
        out.m21.re[i] = 0
        out.m21.im[i] = 0
        out.m22.re[i] = 1
        out.m22.im[i] = 0


@cython.infer_types(True)
cdef inline void multiply(complex_matrix_2x2 *out, const complex_matrix_2x2 *a,
                          const complex_matrix_2x2 *b) noexcept nogil:
    """out = a b (matrix product in each lane)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        a11r = a.m11.re[i]; a11i = a.m11.im[i]; a12r = a.m12.re[i]; a12i = a.m12.im[i]
        a21r = a.m21.re[i]; a21i = a.m21.im[i]; a22r = a.m22.re[i]; a22i = a.m22.im[i]
        b11r = b.m11.re[i]; b11i = b.m11.im[i]; b12r = b.m12.re[i]; b12i = b.m12.im[i]
        b21r = b.m21.re[i]; b21i = b.m21.im[i]; b22r = b.m22.re[i]; b22i = b.m22.im[i]
        out.m11.re[i] = a11r * b11r - a11i * b11i + a12r * b21r - a12i * b21i
        out.m11.im[i] = a11r * b11i + a11i * b11r + a12r * b21i + a12i * b21r
        out.m12.re[i] = a11r * b12r - a11i * b12i + a12r * b22r - a12i * b22i
        out.m12.im[i] = a11r * b12i + a11i * b12r + a12r * b22i + a12i * b22r
        out.m21.re[i] = a21r * b11r - a21i * b11i + a22r * b21r - a22i * b21i
        out.m21.im[i] = a21r * b11i + a21i * b11r + a22r * b21i + a22i * b21r
        out.m22.re[i] = a21r * b12r - a21i * b12i + a22r * b22r - a22i * b22i
        out.m22.im[i] = a21r * b12i + a21i * b12r + a22r * b22i + a22i * b22r


@cython.infer_types(True)
cdef inline void multiply_vector(complex_vector *y1, complex_vector *y2, const complex_matrix_2x2 *a,
                                 const complex_vector *x1, const complex_vector *x2) noexcept nogil:
    """(y1, y2) = a (x1, x2) (matrix times column vector in each lane)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        x1r = x1.re[i]; x1i = x1.im[i]; x2r = x2.re[i]; x2i = x2.im[i]
        r1 = a.m11.re[i] * x1r - a.m11.im[i] * x1i + a.m12.re[i] * x2r - a.m12.im[i] * x2i
        i1 = a.m11.re[i] * x1i + a.m11.im[i] * x1r + a.m12.re[i] * x2i + a.m12.im[i] * x2r
        r2 = a.m21.re[i] * x1r - a.m21.im[i] * x1i + a.m22.re[i] * x2r - a.m22.im[i] * x2i
        i2 = a.m21.re[i] * x1i + a.m21.im[i] * x1r + a.m22.re[i] * x2i + a.m22.im[i] * x2r
        y1.re[i] = r1
        y1.im[i] = i1
        y2.re[i] = r2
        y2.im[i] = i2


# ---------------------------------------------------------------------------
# Determinant
# ---------------------------------------------------------------------------

@cython.infer_types(True)
cdef inline void determinant(complex_vector *det, const complex_matrix_2x2 *a) noexcept nogil:
    """det = a11 a22 - a12 a21 (directly, without factorization)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        re = (a.m11.re[i] * a.m22.re[i] - a.m11.im[i] * a.m22.im[i]
              - a.m12.re[i] * a.m21.re[i] + a.m12.im[i] * a.m21.im[i])
        im = (a.m11.re[i] * a.m22.im[i] + a.m11.im[i] * a.m22.re[i]
              - a.m12.re[i] * a.m21.im[i] - a.m12.im[i] * a.m21.re[i])
        det.re[i] = re
        det.im[i] = im


# ---------------------------------------------------------------------------
# LU decomposition, determinant, solution and inverse from the factors
# ---------------------------------------------------------------------------

@cython.infer_types(True)
cdef inline void lu_decompose(complex_lu_2x2 *lu, const complex_matrix_2x2 *a) noexcept nogil:
    """LU decomposition with partial pivoting, P a = L U (see the top of this file).

    Rows are swapped in a lane when |re a21| + |im a21| > |re a11| + |im a11|.
    A zero first column gives l21 = 0 and u11 = 0 (a singular U).
    """
    cdef int i
    cdef bint swap
    for i in range(VECTOR_LENGTH):
        a11r = a.m11.re[i]; a11i = a.m11.im[i]; a12r = a.m12.re[i]; a12i = a.m12.im[i]
        a21r = a.m21.re[i]; a21i = a.m21.im[i]; a22r = a.m22.re[i]; a22i = a.m22.im[i]
        swap = abs(a21r) + abs(a21i) > abs(a11r) + abs(a11i)
        p11r = a21r if swap else a11r
        p11i = a21i if swap else a11i
        p12r = a22r if swap else a12r
        p12i = a22i if swap else a12i
        p21r = a11r if swap else a21r
        p21i = a11i if swap else a21i
        p22r = a12r if swap else a22r
        p22i = a12i if swap else a22i
        d = p11r * p11r + p11i * p11i
        # l21 = p21 / p11, and 0 for a zero first column (the division itself stays
        # unconditional, so that the lane loop vectorizes).
        inv = 1 / (d + <int>(d == 0))
        lr = (p21r * p11r + p21i * p11i) * inv
        li = (p21i * p11r - p21r * p11i) * inv
        ur = p22r - (lr * p12r - li * p12i)
        ui = p22i - (lr * p12i + li * p12r)
        lu.u11.re[i] = p11r
        lu.u11.im[i] = p11i
        lu.u12.re[i] = p12r
        lu.u12.im[i] = p12i
        lu.l21.re[i] = lr
        lu.l21.im[i] = li
        lu.u22.re[i] = ur
        lu.u22.im[i] = ui
        lu.pivot[i] = <int>swap


@cython.infer_types(True)
cdef inline void lu_determinant(complex_vector *det, const complex_lu_2x2 *lu) noexcept nogil:
    """det a = (-1)^pivot u11 u22 from the LU factors."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        s = 1 - 2 * lu.pivot[i]
        re = (lu.u11.re[i] * lu.u22.re[i] - lu.u11.im[i] * lu.u22.im[i]) * s
        im = (lu.u11.re[i] * lu.u22.im[i] + lu.u11.im[i] * lu.u22.re[i]) * s
        det.re[i] = re
        det.im[i] = im


@cython.infer_types(True)
cdef inline void lu_solve(complex_vector *x1, complex_vector *x2, const complex_lu_2x2 *lu,
                          const complex_vector *b1, const complex_vector *b2) noexcept nogil:
    """(x1, x2) = a^-1 (b1, b2) from the LU factors of a (forward and back substitution)."""
    cdef int i
    cdef bint swap
    for i in range(VECTOR_LENGTH):
        swap = lu.pivot[i] != 0
        c1r = b2.re[i] if swap else b1.re[i]
        c1i = b2.im[i] if swap else b1.im[i]
        c2r = b1.re[i] if swap else b2.re[i]
        c2i = b1.im[i] if swap else b2.im[i]
        # L y = P b
        y2r = c2r - (lu.l21.re[i] * c1r - lu.l21.im[i] * c1i)
        y2i = c2i - (lu.l21.re[i] * c1i + lu.l21.im[i] * c1r)
        # U x = y: x2 = y2 / u22, x1 = (y1 - u12 x2) / u11
        # (every local is assigned once, so that Cython infers the precision of the inputs)
        u22r = lu.u22.re[i]
        u22i = lu.u22.im[i]
        d22 = 1 / (u22r * u22r + u22i * u22i)
        z2r = (y2r * u22r + y2i * u22i) * d22
        z2i = (y2i * u22r - y2r * u22i) * d22
        t1r = c1r - (lu.u12.re[i] * z2r - lu.u12.im[i] * z2i)
        t1i = c1i - (lu.u12.re[i] * z2i + lu.u12.im[i] * z2r)
        u11r = lu.u11.re[i]
        u11i = lu.u11.im[i]
        d11 = 1 / (u11r * u11r + u11i * u11i)
        x1.re[i] = (t1r * u11r + t1i * u11i) * d11
        x1.im[i] = (t1i * u11r - t1r * u11i) * d11
        x2.re[i] = z2r
        x2.im[i] = z2i


@cython.infer_types(True)
cdef inline void lu_inverse(complex_matrix_2x2 *out, const complex_lu_2x2 *lu) noexcept nogil:
    """out = a^-1 from the LU factors of a: a^-1 = U^-1 L^-1 P."""
    cdef int i
    cdef bint swap
    for i in range(VECTOR_LENGTH):
        # 1/u11 and 1/u22 (every local is assigned once: see lu_solve)
        u11r = lu.u11.re[i]
        u11i = lu.u11.im[i]
        d11 = 1 / (u11r * u11r + u11i * u11i)
        v11r = u11r * d11
        v11i = -u11i * d11
        u22r = lu.u22.re[i]
        u22i = lu.u22.im[i]
        d22 = 1 / (u22r * u22r + u22i * u22i)
        v22r = u22r * d22
        v22i = -u22i * d22
        # U^-1 = [[v11, -v11 u12 v22], [0, v22]]
        tr = lu.u12.re[i] * v22r - lu.u12.im[i] * v22i
        ti = lu.u12.re[i] * v22i + lu.u12.im[i] * v22r
        v12r = -(v11r * tr - v11i * ti)
        v12i = -(v11r * ti + v11i * tr)
        # L^-1 = [[1, 0], [-l21, 1]];  U^-1 L^-1 = [[v11 - v12 l21, v12], [-v22 l21, v22]]
        lr = lu.l21.re[i]
        li = lu.l21.im[i]
        w11r = v11r - (v12r * lr - v12i * li)
        w11i = v11i - (v12r * li + v12i * lr)
        w21r = -(v22r * lr - v22i * li)
        w21i = -(v22r * li + v22i * lr)
        # times P: swap the columns where rows were swapped
        swap = lu.pivot[i] != 0
        out.m11.re[i] = v12r if swap else w11r
        out.m11.im[i] = v12i if swap else w11i
        out.m12.re[i] = w11r if swap else v12r
        out.m12.im[i] = w11i if swap else v12i
        out.m21.re[i] = v22r if swap else w21r
        out.m21.im[i] = v22i if swap else w21i
        out.m22.re[i] = w21r if swap else v22r
        out.m22.im[i] = w21i if swap else v22i


# ---------------------------------------------------------------------------
# One-call versions
# ---------------------------------------------------------------------------

cdef inline void solve(complex_vector *x1, complex_vector *x2, const complex_matrix_2x2 *a,
                       const complex_vector *b1, const complex_vector *b2) noexcept nogil:
    """(x1, x2) = a^-1 (b1, b2) by LU decomposition with partial pivoting."""
    cdef complex_lu_2x2_float32 lu32
    cdef complex_lu_2x2_float64 lu64
    if complex_matrix_2x2 is complex_matrix_2x2_float32:
        lu_decompose(&lu32, a)
        lu_solve(x1, x2, &lu32, b1, b2)
    else:
        lu_decompose(&lu64, a)
        lu_solve(x1, x2, &lu64, b1, b2)


cdef inline void inverse(complex_matrix_2x2 *out, const complex_matrix_2x2 *a) noexcept nogil:
    """out = a^-1 by LU decomposition with partial pivoting."""
    cdef complex_lu_2x2_float32 lu32
    cdef complex_lu_2x2_float64 lu64
    if complex_matrix_2x2 is complex_matrix_2x2_float32:
        lu_decompose(&lu32, a)
        lu_inverse(out, &lu32)
    else:
        lu_decompose(&lu64, a)
        lu_inverse(out, &lu64)
