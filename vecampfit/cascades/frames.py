"""Helicity frames of final-state particles as Lorentz matrices, and the
Wigner rotations between the frames of two topologies (numpy).

The frames are those of :func:`vecampfit.kinematics.momenta_to_helicity`,
composed here as matrices: the top frame is the pure boost of the lab into
the rest frame of the sum of the final-state momenta (lab axes); a child's
frame is the parent's turned onto the child's axes
(:math:`z'' \\parallel \\vec p`, :math:`y'' \\parallel z' \\times z''`,
:math:`x'' = y'' \\times z''`) and boosted along :math:`z''` into its rest
frame.  Four-vectors are (px, py, pz, E), in GeV.
"""

import numpy as np

__all__ = ["leaf_frames", "wigner_rotation_angles"]

_METRIC = np.diag([-1.0, -1.0, -1.0, 1.0])


def _boost(p):
    """(n, 4, 4): lab components -> components in the rest frame of p (pure boost)."""
    n = len(p)
    m = np.sqrt(np.maximum(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1), 0.0))
    b = p[:, :3] / p[:, 3:4]
    g = p[:, 3] / m
    b2 = np.sum(b * b, axis=1)
    out = np.zeros((n, 4, 4))
    out[:, 3, 3] = g
    out[:, 3, :3] = -g[:, None] * b
    out[:, :3, 3] = -g[:, None] * b
    k = np.divide(g - 1, b2, out=np.zeros_like(b2), where=b2 > 0)
    out[:, :3, :3] = np.eye(3) + k[:, None, None] * b[:, :, None] * b[:, None, :]
    return out


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def leaf_frames(topology, momenta):
    """Lorentz matrices from the lab to the helicity frame of every final-state particle.

    Parameters
    ----------
    topology : nested pairs of int
        Indices into ``momenta``.
    momenta : sequence of numpy.ndarray
        Lab four-momenta (n, 4) of the final-state particles.

    Returns
    -------
    dict
        Index -> (n, 4, 4) matrix :math:`\\Lambda` with :math:`\\Lambda p` the
        components of a lab four-vector :math:`p` in the particle's helicity
        frame.
    """
    mom = [np.atleast_2d(np.asarray(p, dtype=np.float64)) for p in momenta]

    def total(t):
        return mom[t] if isinstance(t, int) else total(t[0]) + total(t[1])

    out = {}

    def visit(t, lam):
        for child in t:
            p = np.einsum("nij,nj->ni", lam, total(child))
            z = _unit(p[:, :3])
            y = _unit(np.cross(np.array([0.0, 0.0, 1.0]), z))
            x = np.cross(y, z)
            rot = np.zeros((len(p), 4, 4))
            rot[:, 0, :3], rot[:, 1, :3], rot[:, 2, :3] = x, y, z
            rot[:, 3, 3] = 1.0
            turned = rot @ lam
            frame = _boost(np.einsum("nij,nj->ni", turned, total(child))) @ turned
            if isinstance(child, int):
                out[child] = frame
            else:
                visit(child, frame)

    visit(topology, _boost(total(topology)))
    return out


def wigner_rotation_angles(frame, reference):
    """Euler angles of the rotation from one rest frame of a particle to another.

    With :math:`W` the spatial part of :math:`\\Lambda_\\mathrm{ref}
    \\Lambda^{-1}` (a rotation: both are rest frames of the particle), the
    axes of ``frame`` are :math:`W` applied to those of ``reference``, and
    :math:`W = R_z(\\alpha) R_y(\\beta) R_z(\\gamma)`, so that the helicity
    states obey :math:`|\\lambda\\rangle = \\sum_{\\lambda'}
    |\\lambda'\\rangle_\\mathrm{ref} D^s_{\\lambda'\\lambda}(\\alpha, \\beta, \\gamma)`.

    Parameters
    ----------
    frame, reference : numpy.ndarray
        (n, 4, 4) Lorentz matrices of :func:`leaf_frames`.

    Returns
    -------
    alpha, cos_beta, gamma : numpy.ndarray
        Radians (alpha, gamma in (-pi, pi]) and :math:`\\cos\\beta`.
    """
    inverse = _METRIC @ np.transpose(frame, (0, 2, 1)) @ _METRIC
    w = (reference @ inverse)[:, :3, :3]
    cos_beta = np.clip(w[:, 2, 2], -1.0, 1.0)
    sin_beta = np.hypot(w[:, 0, 2], w[:, 1, 2])
    regular = sin_beta > 1e-12
    alpha = np.where(regular, np.arctan2(w[:, 1, 2], w[:, 0, 2]),
                     np.where(cos_beta > 0, np.arctan2(w[:, 1, 0], w[:, 0, 0]),
                              np.arctan2(-w[:, 0, 1], w[:, 1, 1])))
    gamma = np.where(regular, np.arctan2(w[:, 2, 1], -w[:, 2, 0]), 0.0)
    return alpha, cos_beta, gamma
