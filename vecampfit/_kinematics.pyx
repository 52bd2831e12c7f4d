# Kernels behind vecampfit.kinematics: the block routines of kinematics.pxd
# over whole arrays, one <routine>_kernel each, generated during the build
# from tools/block_routines.py (see tools/generate_block_wrappers.py).

include "vecampfit/_kinematics_blocks.pxi"
