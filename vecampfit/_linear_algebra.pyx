# Kernels behind vecampfit.linear_algebra: the 2x2 complex-matrix block
# routines of linear_algebra.pxd over arrays of matrices (padding lanes hold
# the identity), one <routine>_kernel each, generated during the build from
# tools/block_routines.py (see tools/generate_block_wrappers.py).
#
# Arrays are real views of complex arrays: a matrix is a row of 8 numbers
# (re m11, im m11, re m12, im m12, re m21, im m21, re m22, im m22), LU
# factors the same row for [[u11, u12], [l21, u22]] and the pivot in an
# array of its own, a 2-vector a row of 4 and a scalar a row of 2.

include "vecampfit/_linear_algebra_blocks.pxi"
