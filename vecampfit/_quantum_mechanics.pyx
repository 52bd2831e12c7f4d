# Kernels behind vecampfit.quantum_mechanics: the block routines of
# quantum_mechanics.pxd over whole arrays, one <routine>_kernel each,
# generated during the build from tools/block_routines.py (see
# tools/generate_block_wrappers.py), and the scalar d function.

include "vecampfit/_quantum_mechanics_blocks.pxi"

from vecampfit.quantum_mechanics cimport d_function_scalar


def d_function_scalar_kernel(int two_j, int two_m1, int two_m2, double cos_half, double sin_half):
    return d_function_scalar(two_j, two_m1, two_m2, cos_half, sin_half)
