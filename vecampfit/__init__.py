"""vecampfit: vectorized unbinned maximum-likelihood amplitude analyses.

vecampfit fits Dalitz plots and multidimensional decay distributions with
unbinned maximum-likelihood fits.  Densities are written by the user, in numpy
or (fast) in Cython against vecampfit's ``.pxd`` declarations; the routines
used inside a density work on blocks of ``L`` events at once (``L`` a
compile-time constant), in float32 or float64.

The library follows the structure of VecAmpFit (K. Chilikin): module and
routine names are the paper's Fortran names in snake case.
"""

import os as _os

# OpenMP: how the library's idle threads wait between parallel regions (a
# short spin where the library can count its spinning threads out of the
# machine's load, else sleep at once), unless the user chose a policy or a
# spin count.  The OpenMP runtime reads this when it is loaded, with the
# first of vecampfit's compiled modules (vecampfit._openmp).
from . import _openmp  # noqa: E402,F401

from ._build_config import VERSION as __version__  # noqa: E402

__all__ = ["__version__", "get_include", "get_include_dirs", "show_config"]


def get_include():
    """Return the directory with vecampfit's C headers.

    User Cython code that cimports vecampfit's ``.pxd`` files must be compiled
    with this directory on the C include path (``-I``);
    :func:`vecampfit.model_compiler.compile_model` adds it automatically.

    Returns
    -------
    str
        Absolute path of the ``include`` directory inside the installed
        package (it contains ``vecampfit/block.h``).
    """
    return _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "include")


def get_include_dirs():
    """Return every directory that C code using vecampfit's headers needs.

    The static headers (``vecampfit/block.h``) are in :func:`get_include`;
    headers generated during the build (``vecampfit/mathematical_constants.h``)
    are installed there as well, but in an editable install they live in the
    build directory, which is listed too.
    :func:`vecampfit.model_compiler.compile_model` uses all of them.

    Returns
    -------
    list of str
        Absolute paths of existing directories, to be passed as ``-I``; each
        contains a ``vecampfit`` folder of headers.
    """
    from . import _build_config

    dirs = [get_include()]
    build_include = _os.path.join(_os.path.dirname(_os.path.abspath(_build_config.__file__)), "include")
    for d in (build_include,):
        if d not in dirs and _os.path.isdir(d):
            dirs.append(d)
    return dirs


def show_config():
    """Print how this vecampfit installation was built.

    Prints the version, whether the kernels use OpenMP, the vector lengths
    for which models are compiled by default, the CPU target of the
    likelihood kernels in use (see ``vecampfit.fitter._dispatch``), and the
    C compiler arguments.
    """
    from . import _build_config as c
    from .fitter._dispatch import target as kernel_target

    print(f"vecampfit {c.VERSION}")
    print(f"  OpenMP:                {c.OPENMP}")
    print(f"  native CPU tuning:     {c.NATIVE}")
    print(f"  vector lengths:        {', '.join(str(l) for l in c.VECTOR_LENGTHS)}")
    print(f"  kernel vector length:  {c.KERNEL_VECTOR_LENGTH}")
    print(f"  likelihood kernels:    {kernel_target}")
    print(f"  C compiler:            {c.C_COMPILER} {' '.join(c.C_ARGS)}")
    print(f"  include directories:   {', '.join(get_include_dirs())}")
