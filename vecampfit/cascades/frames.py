"""Helicity frames of final-state particles as SL(2, C) matrices, and the
Wigner rotations between the frames of two topologies (numpy).

The frames are those of :func:`vecampfit.kinematics.momenta_to_helicity`,
composed here as matrices: the top frame is the pure boost of the lab into
the rest frame of the sum of the final-state momenta (lab axes); a child's
frame is the parent's turned onto the child's axes
(:math:`z'' \\parallel \\vec p`, :math:`y'' \\parallel z' \\times z''`,
:math:`x'' = y'' \\times z''`) and boosted along :math:`z''` into its rest
frame.  Four-vectors are (px, py, pz, E), in GeV.

The second child's axes are the first child's turned by :math:`\\pi` about
:math:`x''` (the same axes as by its own direction): Jacob and Wick's
:math:`R(\\phi_1, \\theta_1, 0) R_y(\\pi)` followed by :math:`R_z(\\pi)`, whose
phase :math:`e^{-i\\pi\\lambda}` with Jacob and Wick's :math:`(-1)^{s -
\\lambda}` makes a constant: the frames of the amplitudes' convention (no
factor for the second particle), with an SU(2) sign that follows the first
child's angles continuously.

Every step is an element :math:`S` of SL(2, C), acting on a four-vector
through :math:`X = E + \\vec p\\cdot\\vec\\sigma \\mapsto S X S^\\dagger`: the
pure boost into the rest frame of :math:`p` (mass :math:`m`, rapidity
:math:`\\eta` along :math:`\\hat n`) is :math:`e^{-\\eta\\,\\hat n\\cdot\\vec
\\sigma/2}`, the turn onto the axes of a momentum of polar angles
:math:`(\\theta, \\phi)` is :math:`e^{i\\theta\\sigma_y/2}
e^{i\\phi\\sigma_z/2}` (the inverse of the helicity formalism's
:math:`R(\\phi, \\theta, 0) = e^{-i\\phi J_z} e^{-i\\theta J_y}`, with
:math:`\\phi \\in (-\\pi, \\pi]`, :math:`\\theta \\in [0, \\pi]`).  The
Wigner rotation between two rest frames of a particle is then an SU(2)
element with its sign, which the D functions of half-integer spins need.
"""

import numpy as np

__all__ = ["leaf_frames", "lorentz_matrix", "wigner_rotation_angles"]

#: i sigma_x = exp(i pi sigma_z / 2) exp(i pi sigma_y / 2): from the first child's
#: axes to the second child's.
_I_SIGMA_X = np.array([[0, 1j], [1j, 0]])

_SIGMA = np.array([[[0, 1], [1, 0]], [[0, -1j], [1j, 0]], [[1, 0], [0, -1]], [[1, 0], [0, 1]]],
                  dtype=np.complex128)


def _boost(p):
    """(n, 2, 2): the pure boost into the rest frame of p (lab axes)."""
    m = np.sqrt(np.maximum(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1), 0.0))
    g = p[:, 3] / m
    ch, sh = np.sqrt((g + 1) / 2), np.sqrt(np.maximum(g - 1, 0.0) / 2)
    norm = np.linalg.norm(p[:, :3], axis=1)
    n = np.divide(p[:, :3], norm[:, None], out=np.zeros_like(p[:, :3]),
                  where=norm[:, None] > 0)
    return ch[:, None, None] * _SIGMA[3] - sh[:, None, None] * np.einsum("ni,ijk->njk", n,
                                                                          _SIGMA[:3])


def _turn(p):
    """(n, 2, 2): the turn onto the helicity axes of the direction of p."""
    theta = np.arctan2(np.hypot(p[:, 0], p[:, 1]), p[:, 2])
    phi = np.arctan2(p[:, 1], p[:, 0])
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    ry = np.zeros((len(p), 2, 2), dtype=np.complex128)      # exp(i theta sigma_y / 2)
    ry[:, 0, 0], ry[:, 0, 1], ry[:, 1, 0], ry[:, 1, 1] = c, s, -s, c
    rz = np.zeros((len(p), 2, 2), dtype=np.complex128)      # exp(i phi sigma_z / 2)
    rz[:, 0, 0], rz[:, 1, 1] = np.exp(0.5j * phi), np.exp(-0.5j * phi)
    return ry @ rz


def lorentz_matrix(s):
    """The Lorentz matrices (n, 4, 4) of SL(2, C) elements (n, 2, 2):
    :math:`\\Lambda_{\\mu\\nu} = \\tfrac12 \\mathrm{tr}(\\sigma_\\mu S \\sigma_\\nu
    S^\\dagger)` in the components (px, py, pz, E)."""
    s = np.asarray(s)
    return 0.5 * np.einsum("mab,nbc,kcd,nad->nmk", _SIGMA, s, _SIGMA, np.conj(s),
                           optimize=True).real


def _apply(s, p):
    """Components of the four-vectors p (n, 4) after the SL(2, C) elements s."""
    return np.einsum("nij,nj->ni", lorentz_matrix(s), p)


def leaf_frames(topology, momenta):
    """SL(2, C) elements from the lab to the helicity frame of every final-state particle.

    Parameters
    ----------
    topology : nested pairs of int
        Indices into ``momenta``.
    momenta : sequence of numpy.ndarray
        Lab four-momenta (n, 4) of the final-state particles.

    Returns
    -------
    dict
        Index -> (n, 2, 2) complex matrix :math:`S`, :math:`S X S^\\dagger`
        the components of a lab four-vector in the particle's helicity frame
        (:func:`lorentz_matrix` gives the Lorentz matrix).
    """
    mom = [np.atleast_2d(np.asarray(p, dtype=np.float64)) for p in momenta]

    def total(t):
        return mom[t] if isinstance(t, int) else total(t[0]) + total(t[1])

    out = {}

    def visit(t, frame):
        turn = _turn(_apply(frame, total(t[0]))) @ frame
        for child, turned in ((t[0], turn), (t[1], _I_SIGMA_X @ turn)):
            boosted = _boost(_apply(turned, total(child))) @ turned
            if isinstance(child, int):
                out[child] = boosted
            else:
                visit(child, boosted)

    visit(topology, _boost(total(topology)))
    return out


def wigner_rotation_angles(frame, reference):
    """Euler angles of the rotation from one rest frame of a particle to another.

    :math:`W = S_\\mathrm{ref} S^{-1}` (an SU(2) element: both are rest frames
    of the particle) is written :math:`W = e^{-i\\alpha\\sigma_z/2}
    e^{-i\\beta\\sigma_y/2} e^{-i\\gamma\\sigma_z/2}`, the element of
    :math:`R_z(\\alpha) R_y(\\beta) R_z(\\gamma)` with its sign: with
    :math:`\\alpha, \\gamma \\in (-2\\pi, 2\\pi]` and :math:`\\beta \\in [0, \\pi]`,
    :math:`D^s(\\alpha, \\beta, \\gamma)` is the representation of :math:`W`
    for half-integer spins as well, and the helicity states obey
    :math:`|\\lambda\\rangle = \\sum_{\\lambda'} |\\lambda'\\rangle_\\mathrm{ref}
    D^s_{\\lambda'\\lambda}(\\alpha, \\beta, \\gamma)`.

    Parameters
    ----------
    frame, reference : numpy.ndarray
        (n, 2, 2) SL(2, C) elements of :func:`leaf_frames`.

    Returns
    -------
    alpha, cos_beta, gamma : numpy.ndarray
        Radians and :math:`\\cos\\beta`.
    """
    f = np.asarray(frame)
    inverse = np.empty_like(f)                       # the inverse of a unimodular 2 x 2
    inverse[:, 0, 0], inverse[:, 1, 1] = f[:, 1, 1], f[:, 0, 0]
    inverse[:, 0, 1], inverse[:, 1, 0] = -f[:, 0, 1], -f[:, 1, 0]
    w = np.asarray(reference) @ inverse
    c, s = np.abs(w[:, 0, 0]), np.abs(w[:, 1, 0])
    tiny = 1e-12 * (c + s)
    half_sum = np.where(c > tiny, -np.angle(w[:, 0, 0]), 0.0)        # (alpha + gamma) / 2
    half_diff = np.where(s > tiny, np.angle(w[:, 1, 0]), 0.0)        # (alpha - gamma) / 2
    cos_beta = np.clip((c * c - s * s) / (c * c + s * s), -1.0, 1.0)
    return half_sum + half_diff, cos_beta, half_sum - half_diff
