# Kernels behind vecampfit.interpolation: interpolate_uniform and interpolate
# of interpolation.pxd over whole arrays (padding lanes hold the first node),
# generated during the build from tools/block_routines.py (see
# tools/generate_block_wrappers.py).

include "vecampfit/_interpolation_blocks.pxi"
