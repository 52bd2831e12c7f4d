# Kernels behind vecampfit.geometry: azimuthal_angle_difference of
# geometry.pxd over whole arrays (generated during the build from
# tools/block_routines.py, see tools/generate_block_wrappers.py) and its
# scalar version in each precision.

include "vecampfit/_geometry_blocks.pxi"

from vecampfit.geometry cimport azimuthal_angle_difference_scalar


def scalar64(double phi1, double phi2):
    return azimuthal_angle_difference_scalar(phi1, phi2)


def scalar32(float phi1, float phi2):
    return azimuthal_angle_difference_scalar(phi1, phi2)
