# Kernels behind vecampfit.vector4: the block routines of vector4.pxd over
# arrays of shape (n, 4), columns px, py, pz, E (padding lanes hold
# (0, 0, 0, 1)), one <routine>_kernel each, generated during the build from
# tools/block_routines.py (see tools/generate_block_wrappers.py).

include "vecampfit/_vector4_blocks.pxi"
