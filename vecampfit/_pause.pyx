# cython: language_level=3
"""The time of a spin wait's turn (``vecampfit/pause.h``), measured before
the OpenMP runtime is loaded: this module is not linked with OpenMP
(:mod:`vecampfit._openmp`)."""

cdef extern from "vecampfit/pause.h":
    double vecampfit_spin_seconds(long n) noexcept nogil


def spin_seconds(long turns):
    """Wall time of ``turns`` turns of a spin-wait loop (a relaxed atomic
    load and the pause instruction, as GCC's OpenMP runtime spins).

    Parameters
    ----------
    turns : int
        Turns of the loop (at least 0).

    Returns
    -------
    float
        Seconds.
    """
    if turns < 0:
        raise ValueError(f"turns must be at least 0, got {turns}")
    cdef double t
    with nogil:
        t = vecampfit_spin_seconds(turns)
    return t
