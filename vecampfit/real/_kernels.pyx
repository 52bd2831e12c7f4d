# Kernels behind vecampfit.real: the block routines of real/__init__.pxd over
# whole arrays, one <routine>_kernel each, generated during the build from
# tools/block_routines.py (see tools/generate_block_wrappers.py).

include "vecampfit/real/_kernels_blocks.pxi"
