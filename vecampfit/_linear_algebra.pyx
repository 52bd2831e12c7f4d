# Kernels behind vecampfit.linear_algebra: the 2x2 complex-matrix block
# routines of linear_algebra.pxd applied over arrays of matrices, in blocks of
# VECTOR_LENGTH with a padded tail block (padding lanes hold the identity and
# are discarded).
#
# Arrays are real views of complex arrays: a matrix is a row of 8 numbers
# (re m11, im m11, re m12, im m12, re m21, im m21, re m22, im m22), a
# 2-vector a row of 4 and a scalar a row of 2.

from cython cimport floating

cimport vecampfit.linear_algebra as la
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64
from vecampfit.linear_algebra cimport (complex_matrix_2x2, complex_lu_2x2, complex_matrix_2x2_float32,
                                       complex_matrix_2x2_float64, complex_lu_2x2_float32,
                                       complex_lu_2x2_float64)

# Operation codes (kept in step with linear_algebra.py).
cdef enum:
    LU_DECOMPOSE = 0
    DETERMINANT = 1
    LU_DETERMINANT = 2
    SOLVE = 3
    LU_SOLVE = 4
    INVERSE = 5
    LU_INVERSE = 6
    MULTIPLY = 7
    MULTIPLY_VECTOR = 8


cdef inline void _load_matrix(complex_matrix_2x2 *m, const floating[:, ::1] a, Py_ssize_t b, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        if i < k:
            m.m11.re[i] = a[b + i, 0]
            m.m11.im[i] = a[b + i, 1]
            m.m12.re[i] = a[b + i, 2]
            m.m12.im[i] = a[b + i, 3]
            m.m21.re[i] = a[b + i, 4]
            m.m21.im[i] = a[b + i, 5]
            m.m22.re[i] = a[b + i, 6]
            m.m22.im[i] = a[b + i, 7]
        else:
            m.m11.re[i] = 1
            m.m11.im[i] = 0
            m.m12.re[i] = 0
            m.m12.im[i] = 0
            m.m21.re[i] = 0
            m.m21.im[i] = 0
            m.m22.re[i] = 1
            m.m22.im[i] = 0


cdef inline void _store_matrix(floating[:, ::1] a, const complex_matrix_2x2 *m, Py_ssize_t b, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(k):
        a[b + i, 0] = m.m11.re[i]
        a[b + i, 1] = m.m11.im[i]
        a[b + i, 2] = m.m12.re[i]
        a[b + i, 3] = m.m12.im[i]
        a[b + i, 4] = m.m21.re[i]
        a[b + i, 5] = m.m21.im[i]
        a[b + i, 6] = m.m22.re[i]
        a[b + i, 7] = m.m22.im[i]


cdef void _run(complex_matrix_2x2 *x, complex_matrix_2x2 *y, complex_lu_2x2 *lu,
               complex_vector *v1, complex_vector *v2, complex_vector *w1, complex_vector *w2, int op,
               const floating[:, ::1] a, const floating[:, ::1] bvec, const floating[::1] pivot,
               floating[:, ::1] out, floating[::1] out_pivot) noexcept nogil:
    """Apply operation ``op`` block by block.

    a: matrices (or LU factors packed as [[u11, u12], [l21, u22]] with
    ``pivot``); bvec: second operand (matrices for MULTIPLY, 2-vectors for
    SOLVE, LU_SOLVE and MULTIPLY_VECTOR); out: matrices, 2-vectors or scalars.
    """
    cdef Py_ssize_t n = a.shape[0], nb, b, i, k
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load_matrix(x, a, b, k)
        if op == LU_DETERMINANT or op == LU_SOLVE or op == LU_INVERSE:
            # The factors in x, packed as [[u11, u12], [l21, u22]].
            for i in range(VECTOR_LENGTH):
                lu.u11.re[i] = x.m11.re[i]
                lu.u11.im[i] = x.m11.im[i]
                lu.u12.re[i] = x.m12.re[i]
                lu.u12.im[i] = x.m12.im[i]
                lu.l21.re[i] = x.m21.re[i]
                lu.l21.im[i] = x.m21.im[i]
                lu.u22.re[i] = x.m22.re[i]
                lu.u22.im[i] = x.m22.im[i]
                lu.pivot[i] = pivot[b + i] if i < k else 0
        if op == MULTIPLY:
            _load_matrix(y, bvec, b, k)
        elif op == SOLVE or op == LU_SOLVE or op == MULTIPLY_VECTOR:
            for i in range(VECTOR_LENGTH):
                v1.re[i] = bvec[b + i, 0] if i < k else 0
                v1.im[i] = bvec[b + i, 1] if i < k else 0
                v2.re[i] = bvec[b + i, 2] if i < k else 0
                v2.im[i] = bvec[b + i, 3] if i < k else 0
        if op == LU_DECOMPOSE:
            la.lu_decompose(lu, x)
            for i in range(k):
                out[b + i, 0] = lu.u11.re[i]
                out[b + i, 1] = lu.u11.im[i]
                out[b + i, 2] = lu.u12.re[i]
                out[b + i, 3] = lu.u12.im[i]
                out[b + i, 4] = lu.l21.re[i]
                out[b + i, 5] = lu.l21.im[i]
                out[b + i, 6] = lu.u22.re[i]
                out[b + i, 7] = lu.u22.im[i]
                out_pivot[b + i] = lu.pivot[i]
        elif op == DETERMINANT or op == LU_DETERMINANT:
            if op == DETERMINANT:
                la.determinant(w1, x)
            else:
                la.lu_determinant(w1, lu)
            for i in range(k):
                out[b + i, 0] = w1.re[i]
                out[b + i, 1] = w1.im[i]
        elif op == SOLVE or op == LU_SOLVE or op == MULTIPLY_VECTOR:
            if op == SOLVE:
                la.solve(w1, w2, x, v1, v2)
            elif op == LU_SOLVE:
                la.lu_solve(w1, w2, lu, v1, v2)
            else:
                la.multiply_vector(w1, w2, x, v1, v2)
            for i in range(k):
                out[b + i, 0] = w1.re[i]
                out[b + i, 1] = w1.im[i]
                out[b + i, 2] = w2.re[i]
                out[b + i, 3] = w2.im[i]
        else:
            if op == INVERSE:
                la.inverse(y, x)
            elif op == LU_INVERSE:
                la.lu_inverse(y, lu)
            else:
                la.multiply(y, x, y)
            _store_matrix(out, y, b, k)


def apply(int op, const floating[:, ::1] a, const floating[:, ::1] bvec, const floating[::1] pivot,
          floating[:, ::1] out, floating[::1] out_pivot):
    """Run operation ``op`` over arrays (see _run)."""
    cdef complex_matrix_2x2_float32 x32, y32
    cdef complex_matrix_2x2_float64 x64, y64
    cdef complex_lu_2x2_float32 lu32
    cdef complex_lu_2x2_float64 lu64
    cdef complex_vector_float32 v1_32, v2_32, w1_32, w2_32
    cdef complex_vector_float64 v1_64, v2_64, w1_64, w2_64
    with nogil:
        if floating is float:
            _run(&x32, &y32, &lu32, &v1_32, &v2_32, &w1_32, &w2_32, op, a, bvec, pivot, out, out_pivot)
        else:
            _run(&x64, &y64, &lu64, &v1_64, &v2_64, &w1_64, &w2_64, op, a, bvec, pivot, out, out_pivot)
