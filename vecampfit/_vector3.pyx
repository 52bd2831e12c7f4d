# Kernels behind vecampfit.vector3: the block routines of vector3.pxd over
# arrays of shape (n, 3) (padding lanes hold (0, 0, 1)), one <routine>_kernel
# each, generated during the build from tools/block_routines.py (see
# tools/generate_block_wrappers.py).

include "vecampfit/_vector3_blocks.pxi"
