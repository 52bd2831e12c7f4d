"""Shared parts of the B+ -> K+ K+ K- example after Laura++'s GenFit3K (paper section 9.2).

The model, its conventions, the normalization grid, the event buffers, the
compiled density, Laura++'s files and the fit sequence, used by the programs
``generate3k.py``, ``fit3k.py``, ``plot3k.py`` and ``laura_crosscheck.py``.

Conventions (those of Laura++'s GenFit3K, checked against Laura++'s own fits
by ``laura_crosscheck.py``):

* Daughters 1 = K+, 2 = K+, 3 = K-.  Events are points (m13^2, m23^2) of the
  Dalitz plot, GeV^2; the model is symmetric under 1 <-> 2.
* Amplitude :math:`A = n_{NR} c_{NR} + \\sum_R n_R c_R [X_R(K^+_1 K^-) + X_R(K^+_2 K^-)]`
  with complex coefficients c (fit parameters ``<R>_RE``, ``<R>_IM``), the
  phi(1020) the reference (c = 1), and constant factors n (see below).
* For a pair (K+_a K-) with bachelor K+_b, mass m, K momentum q in the pair
  frame, bachelor momentum p* in the B+ frame and covariant factor
  f = (M_B^2 + m^2 - m_K^2) / (2 M_B m) (``kinematics.covariant_factor``):

  .. math::

      X_R = B_R(m)\\,(p^* q)^L F_L^{(cov)}(f)\\,P_L^{(Leg\\,Laura)}(\\cos\\theta)\\,
            F_B(p^* [F_L^{(cov)}(f)]^{1/L}, r_B, L),

  B_R the relativistic Breit-Wigner amplitude with mass-dependent width and
  Blatt-Weisskopf factor ratio F_R(q)/F_R(q0) (``breit_wigner_q_f_nophsp``,
  radius r_R = 4 /GeV), F_B the Blatt-Weisskopf factor
  1/sqrt(P_L(z^2)) of the B+ decay (radius r_B = 5 /GeV) at the covariantly
  scaled momentum, not divided by its value at m0 (that constant only
  rescales c), and P_L^Laura = (-1)^L 2^(2L)/binom(2L, L) P_L.
* Helicity angle: theta is the angle between the K- and the bachelor K+_b in
  the rest frame of the pair (K+_a K-), so cos(theta) decreases linearly
  from +1 to -1 as m^2(K- K+_b) rises over its range at fixed m
  (``kinematics.dalitz_cos_helicity_angle`` with particles K+_a, K-, K+_b).
  Exchanging K+_1 and K+_2 maps the angle of one pair onto that of the
  other, so that A(m13^2, m23^2) = A(m23^2, m13^2).
* Normalization constants: n_R = 1/sqrt(I_R), I_R the integral of |X_R(13) +
  X_R(23)|^2 over the whole Dalitz plot at the generated mass and width, and
  n_NR = 1/sqrt(area).  At the generated values the coefficients then have
  the meaning of Laura++'s, which normalizes every component to unit
  integral; Laura++ keeps renormalizing as masses and widths move, so its
  coefficients differ slightly from ours away from the generated values
  (:meth:`GridIntegrals.laura_coefficients` converts exactly).  Fit
  fractions do not depend on any of this.

The model itself is declared with vecampfit.isobar in isobar_model3k.py
(its numpy evaluation: :func:`numpy_density`); genfit3k_density.pyx is the
same model written by hand in Cython, which the fits use.  The tests compare
both with the formulas above written in numpy (tests/genfit3k_reference.py).
"""

import argparse
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

from vecampfit import high_energy_physics as hep  # noqa: E402
from vecampfit import command_line, kinematics, numeric_integration, particle_data  # noqa: E402

#: Laura++'s masses (GeV) of B+ and K+-: those of its GenFit3K pseudoexperiments.
LAURA_MASSES = {"B": 5.27934, "K": 0.493677}
#: Blatt-Weisskopf radii (1/GeV): resonances and the B+.
RESONANCE_RADIUS = 4.0
PARENT_RADIUS = 5.0
#: Resonances: parameter prefix, name, mass (GeV), width (GeV), spin.
RESONANCES = (("PHI", "phi(1020)", 1.019460, 0.004247, 1),
              ("F2", "f'2(1525)", 1.5174, 0.086, 2))
#: Components in the order of Laura++'s model (its A0, A1, A2).
COMPONENTS = ("PHI", "F2", "NR")
COMPONENT_NAMES = {"PHI": "phi(1020)", "F2": "f'2(1525)", "NR": "non-resonant"}
#: Fit parameters, in the order of the compiled density.
PARAMETER_NAMES = ("PHI_M", "PHI_G", "F2_M", "F2_G", "PHI_RE", "PHI_IM", "F2_RE", "F2_IM",
                   "NR_RE", "NR_IM")
#: Generated values (Laura++'s GenFit3K); coefficients in Laura++'s normalization.
GENERATED = {"PHI_M": 1.019460, "PHI_G": 0.004247, "F2_M": 1.5174, "F2_G": 0.086,
             "PHI_RE": 1.0, "PHI_IM": 0.0, "F2_RE": 0.0, "F2_IM": 1.0, "NR_RE": 1.0, "NR_IM": 0.0}
#: Parameters of the two fit stages (Laura++'s two-stage fit).
COEFFICIENTS = ("F2_RE", "F2_IM", "NR_RE", "NR_IM")
MASSES_AND_WIDTHS = ("PHI_M", "PHI_G", "F2_M", "F2_G")
#: Event-buffer fields: per pair (K+_1 K-) = "13", (K+_2 K-) = "23": s = m^2, then for
#: phi(1020) and f'2(1525) G = q^(2L+1) F_R(q)^2 / m and W (see genfit3k_density.pyx).
PAIRS = ("13", "23")
EVENT_FIELDS = tuple(f"{kind}_{pair}" for pair in PAIRS
                     for kind in ("s", "g_phi", "w_phi", "g_f2", "w_f2"))
#: Branches of the event files (Laura++'s names).
BRANCHES = ("m13Sq", "m23Sq")
TREE = "toys"
#: Laura++'s files copied into the example.
DATA = os.path.join(HERE, "data")
LAURA_TOYS = os.path.join(DATA, "toys_expt_0-9.root")
LAURA_RESULTS = os.path.join(DATA, "laura_fit_results_expt_0-9.txt")


# ----------------------------------------------------------------------------
# Masses and kinematics
# ----------------------------------------------------------------------------

def masses(kind="laura"):
    """B+ and K+- masses (GeV): ``"laura"`` (Laura++'s, default) or ``"pdg<year>"``
    (``vecampfit.particle_data``, e.g. ``"pdg2024"``)."""
    if kind == "laura":
        return dict(LAURA_MASSES)
    if isinstance(kind, str) and kind.startswith("pdg") and kind[3:].isdigit():
        edition = int(kind[3:])
        return {"B": particle_data.mass("B+", edition), "K": particle_data.mass("K+", edition)}
    raise ValueError(f"masses must be 'laura' or 'pdg<edition>' (e.g. 'pdg2024'), got {kind!r}")


def dalitz_limits(m):
    """Range (lower, upper) of m13 = m(K+ K-) in GeV."""
    return 2 * m["K"], m["B"] - m["K"]


def inside(m13sq, m23sq, m):
    """True where (m13^2, m23^2) lies in the Dalitz plot."""
    mk = m["K"]
    return kinematics.dalitz_inside(np.asarray(m13sq, float), np.asarray(m23sq, float), m["B"], mk,
                                    mk, mk)


def pair_kinematics(s_pair, s_other, m):
    """Kinematics of a pair (K+_a K-) with bachelor K+_b.

    Parameters
    ----------
    s_pair : array_like
        m^2(K+_a K-) (GeV^2).
    s_other : array_like
        m^2(K- K+_b) (GeV^2).
    m : dict
        Masses (:func:`masses`).

    Returns
    -------
    dict
        ``m``, ``q`` (K momentum in the pair frame), ``p_star`` (bachelor
        momentum in the B+ frame), ``f`` (covariant factor), ``cos`` (cosine of
        the angle between K- and K+_b in the pair frame), GeV.
    """
    mb, mk = m["B"], m["K"]
    s_pair = np.asarray(s_pair, dtype=np.float64)
    s_other = np.asarray(s_other, dtype=np.float64)
    mm = np.sqrt(s_pair)
    return {
        "m": mm,
        "q": kinematics.decay_momentum(mm, mk, mk),
        "p_star": kinematics.decay_momentum(mb, mm, mk),
        "f": kinematics.covariant_factor(mm, mb, mk),
        # Particles (K+_a, K-, K+_b): the angle of K- to K+_b in the (K+_a K-) frame.
        "cos": kinematics.dalitz_cos_helicity_angle(s_pair, s_other, mb, mk, mk, mk),
    }


def check_events(m13sq, m23sq, m, what="events"):
    """Raise ValueError naming the first event outside the Dalitz plot (beyond rounding)."""
    m13sq = np.asarray(m13sq, dtype=np.float64)
    m23sq = np.asarray(m23sq, dtype=np.float64)
    if m13sq.shape != m23sq.shape or m13sq.ndim != 1:
        raise ValueError(f"{what}: m13Sq and m23Sq must be 1-D arrays of one length, got shapes "
                         f"{m13sq.shape} and {m23sq.shape}")
    bad = ~(np.isfinite(m13sq) & np.isfinite(m23sq))
    lo, hi = dalitz_limits(m)
    eps = 1e-9
    bad |= (m13sq <= lo * lo * (1 + eps)) | (m13sq >= hi * hi) | \
        (m23sq <= lo * lo * (1 + eps)) | (m23sq >= hi * hi)
    ok = ~bad
    for s, t in ((m13sq, m23sq), (m23sq, m13sq)):
        c = np.zeros_like(s)
        c[ok] = kinematics.dalitz_cos_helicity_angle(s[ok], t[ok], m["B"], m["K"], m["K"], m["K"])
        bad |= ok & (np.abs(c) > 1 + 1e-7)
    if np.any(bad):
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what}: event {j} (m13Sq = {m13sq[j]!r}, m23Sq = {m23sq[j]!r} GeV^2) "
                         f"is outside the Dalitz plot of B+ -> K+ K+ K- (masses {m})")


# ----------------------------------------------------------------------------
# The model: in numpy from the isobar layer, event buffers of the Cython density
# ----------------------------------------------------------------------------

def numpy_density(m, normalization, params=None):
    """S(m13^2, m23^2) in numpy: the model of isobar_model3k.py
    (:meth:`vecampfit.isobar.IsobarModel.density`) for the masses ``m``, the
    constants n and the parameters (default: the generated values, in the
    order of :data:`PARAMETER_NAMES`).

    Returns
    -------
    callable
        ``density(m13sq, m23sq)`` (GeV^2 arrays) -> S.
    """
    import isobar_model3k
    model = isobar_model3k.build()
    values = dict(GENERATED if params is None else zip(PARAMETER_NAMES, params))
    constants = {"M_B": m["B"], "M_KP": m["K"], "M_KM": m["K"],
                 **{f"N_{c}": v for c, v in normalization.items()}}
    return lambda m13sq, m23sq: model.density({"m13Sq": m13sq, "m23Sq": m23sq}, values,
                                              constants)


def _scaled_parent_factor(kin, spin):
    """F_B(p* (F_L^cov)^(1/L), r_B, L)."""
    fcov = hep.covariant_factor_j(kin["f"], spin)
    return hep.blatt_weisskopf(kin["p_star"] * fcov ** (1.0 / spin), PARENT_RADIUS, spin)


def event_buffer_fields(m13sq, m23sq, m):
    """Event-buffer fields (:data:`EVENT_FIELDS`, float64) of events (m13^2, m23^2):
    everything that does not depend on the parameters."""
    m13sq = np.asarray(m13sq, dtype=np.float64)
    m23sq = np.asarray(m23sq, dtype=np.float64)
    fields = {}
    for pair, (s, t) in zip(PAIRS, ((m13sq, m23sq), (m23sq, m13sq))):
        kin = pair_kinematics(s, t, m)
        fields[f"s_{pair}"] = s
        for name, _, _, _, spin in RESONANCES:
            fr = hep.blatt_weisskopf(kin["q"], RESONANCE_RADIUS, spin)
            angular = hep.covariant_angular_distribution(kin["p_star"], kin["q"], kin["f"],
                                                         kin["cos"], spin)
            key = name.lower()
            fields[f"g_{key}_{pair}"] = kin["q"] ** (2 * spin + 1) * fr * fr / kin["m"]
            fields[f"w_{key}_{pair}"] = angular * _scaled_parent_factor(kin, spin) * fr
    return fields


def records_m2(records):
    """(m13^2, m23^2) from event records, with a clear error for missing branches."""
    for b in BRANCHES:
        if b not in records:
            raise KeyError(f"event records need branch {b!r} (have {sorted(records)})")
    return (np.asarray(records["m13Sq"], dtype=np.float64),
            np.asarray(records["m23Sq"], dtype=np.float64))


def fill_event_buffer_function(m):
    """``fill_event_buffer(records)`` for :class:`vecampfit.fitter.Density`.

    Records with branches ``m13Sq`` and ``m23Sq`` are checked and turned into
    the fields; records that already hold every field (a grid filled once and
    reused by several fits) pass through.
    """
    def fill(records):
        if all(f in records for f in EVENT_FIELDS):
            return records
        m13sq, m23sq = records_m2(records)
        check_events(m13sq, m23sq, m)
        return event_buffer_fields(m13sq, m23sq, m)
    return fill


# ----------------------------------------------------------------------------
# Normalization grid (Laura++'s integration scheme for this model)
# ----------------------------------------------------------------------------

class GridOptions(argparse.Namespace):
    """Options of :func:`normalization_grid` (see there); defaults are Laura++'s."""

    def __init__(self, coarse=0.005, fine=0.01, band=5.0, threshold_bins=50.0, order=0,
                 fold=True):
        super().__init__(coarse=coarse, fine=fine, band=band, threshold_bins=threshold_bins,
                         order=order, fold=fold)


def _axis_segments(m, m0, gamma0, opt):
    """Intervals of one axis: (lower, upper, spacing)."""
    lo, hi = dalitz_limits(m)
    fine = opt.fine * gamma0
    r_min, r_max = m0 - opt.band * gamma0, m0 + opt.band * gamma0
    if r_max <= lo or r_min >= hi:
        return [(lo, hi, opt.coarse)]
    r_max = min(r_max, hi)
    if r_min < lo + opt.threshold_bins * opt.coarse:
        # Close to threshold: one fine interval from threshold (Laura++).
        segs = [(lo, r_max, fine)]
    else:
        segs = [(lo, r_min, opt.coarse), (r_min, r_max, fine)]
    if r_max < hi:
        segs.append((r_max, hi, opt.coarse))
    return segs


def _interval(lo, hi, spacing, order):
    if order:
        return numeric_integration.Interval(lo, hi, spacing=spacing, order=order)
    # Laura++: one Gauss-Legendre rule of int(range / spacing) nodes per interval.
    return numeric_integration.Interval(lo, hi, points=max(1, int((hi - lo) / spacing)))


def normalization_grid(m, phi_mass=GENERATED["PHI_M"], phi_width=GENERATED["PHI_G"],
                       options=None):
    """Gauss-Legendre grid over the Dalitz plot in (m13, m23), Laura++'s scheme.

    Each axis is split into a band m0 +- ``band`` Gamma around the phi(1020)
    (from threshold if it starts within ``threshold_bins`` coarse spacings of
    it; spacing ``fine`` Gamma) and the rest (spacing ``coarse``), in m13 and,
    by symmetry, in m23; every rectangle of the two splits gets a product of
    Gauss-Legendre rules (:func:`vecampfit.numeric_integration.dalitz_grid`,
    weights with the Jacobian 4 m13 m23), and points outside the Dalitz plot
    are dropped.  With ``order`` 0 an interval gets one rule of
    int(length/spacing) nodes (as in Laura++), else composite rules of
    ``order`` nodes.  The grid is symmetric under m13 <-> m23; with ``fold``
    only points with m13 <= m23 are kept, with weights doubled off the
    diagonal: the sum of a symmetric function is then unchanged, with half
    the points.

    Parameters
    ----------
    m : dict
        Masses (:func:`masses`).
    phi_mass, phi_width : float
        Where the fine band goes (GeV).
    options : GridOptions, optional
        ``coarse`` (GeV), ``fine`` (fraction of Gamma), ``band`` (in Gamma),
        ``threshold_bins``, ``order``, ``fold``.

    Returns
    -------
    records : dict
        ``m13Sq``, ``m23Sq`` of the points (GeV^2).
    weights : numpy.ndarray
        Weights (GeV^4): the sum over the points of w S approximates the
        integral of S over the whole Dalitz plot.
    info : dict
        ``rectangle_nodes`` (nodes of all rectangles, as Laura++ counts them),
        ``inside`` (points in the Dalitz plot), ``points`` (kept), ``regions``.
    """
    opt = options or GridOptions()
    if not (opt.coarse > 0 and opt.fine > 0 and opt.band > 0 and opt.threshold_bins >= 0):
        raise ValueError(f"grid options must be positive: {vars(opt)}")
    if not (phi_mass > 0 and phi_width > 0):
        raise ValueError(f"phi mass and width must be positive, got {phi_mass}, {phi_width}")
    segs = _axis_segments(m, phi_mass, phi_width, opt)
    axis = [_interval(lo, hi, sp, opt.order) for lo, hi, sp in segs]
    n_nodes = [iv.subintervals()[0] * iv.subintervals()[1] for iv in axis]
    regions = [(a, b) for a in axis for b in axis]
    mk = m["K"]
    grid = numeric_integration.dalitz_grid(m["B"], mk, mk, mk, regions, variables="mass",
                                           fold=opt.fold)
    s13, s23, w = grid.m_ab_squared, grid.m_bc_squared, grid.weights
    # Folded: every point off the diagonal stands for two of the whole grid.
    n_inside = 2 * len(w) - np.count_nonzero(grid.m_ab == grid.m_bc) if opt.fold else len(w)
    info = {"rectangle_nodes": int(sum(a * b for a in n_nodes for b in n_nodes)),
            "inside": int(n_inside), "points": int(len(w)),
            "segments": [(lo, hi, sp, n) for (lo, hi, sp), n in zip(segs, n_nodes)]}
    return {"m13Sq": s13, "m23Sq": s23}, w, info


def add_grid_options(parser):
    """Command-line options of the normalization grid."""
    g = parser.add_argument_group("normalization grid (Laura++'s scheme)")
    g.add_argument("--grid-coarse", type=float, default=0.005, metavar="GEV",
                   help="node spacing outside the phi(1020) band (GeV)")
    g.add_argument("--grid-fine", type=float, default=0.01, metavar="FRACTION",
                   help="node spacing in the phi(1020) band, in units of its width")
    g.add_argument("--grid-band", type=float, default=5.0, metavar="WIDTHS",
                   help="half-width of the phi(1020) band in units of its width")
    g.add_argument("--grid-order", type=int, default=0, metavar="N",
                   help="nodes per composite Gauss-Legendre rule (0: one rule per interval, "
                        "as Laura++)")
    g.add_argument("--no-fold", action="store_true",
                   help="keep the whole grid instead of folding it onto m13 <= m23")
    return parser


def grid_options(args):
    """:class:`GridOptions` from parsed command-line options."""
    for name in ("grid_coarse", "grid_fine", "grid_band"):
        if not getattr(args, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got "
                             f"{getattr(args, name)}")
    if args.grid_order < 0:
        raise ValueError(f"--grid-order must be 0 or positive, got {args.grid_order}")
    return GridOptions(coarse=args.grid_coarse, fine=args.grid_fine, band=args.grid_band,
                       order=args.grid_order, fold=not args.no_fold)


# ----------------------------------------------------------------------------
# Normalization constants, fit fractions, Laura++'s coefficients
# ----------------------------------------------------------------------------

def normalization_constants(m, records, weights):
    """n_R = 1/sqrt(I_R) at the generated masses and widths (see the module
    description): :func:`vecampfit.isobar.unit_normalization` of the model of
    isobar_model3k.py (whose starting values are the generated ones) with the
    masses ``m``."""
    import isobar_model3k
    from vecampfit.isobar import unit_normalization
    m13sq, m23sq = records_m2(records)
    n = unit_normalization(isobar_model3k.build(), {"m13Sq": m13sq, "m23Sq": m23sq}, weights,
                           constants={"M_B": m["B"], "M_KP": m["K"], "M_KM": m["K"]})
    return {c: n[f"N_{c}"] for c in COMPONENTS}


def coefficient(params, name):
    p = dict(zip(PARAMETER_NAMES, np.asarray(params, dtype=np.float64)))
    return complex(p[f"{name}_RE"], p[f"{name}_IM"])


class GridIntegrals:
    """Integrals over the normalization grid with the compiled density (fast).

    The grid is kept as an event buffer of the compiled density, which is
    evaluated there with its gradient, with all coefficients but one set to
    zero for the integral of one component.

    Parameters
    ----------
    density : vecampfit.fitter.Density
        The compiled density (:func:`signal_density`) in float64.
    fields : dict
        Event-buffer fields of the grid points (:func:`event_buffer_fields`).
    weights : numpy.ndarray
        Grid weights.
    """

    def __init__(self, density, fields, weights):
        self.density = density
        self.blocks = density.event_buffer(fields)
        self.weights = np.asarray(weights, dtype=np.float64)

    def _only(self, params, component):
        x = np.array(params, dtype=np.float64)
        for c in COMPONENTS:
            if c != component:
                x[PARAMETER_NAMES.index(f"{c}_RE")] = 0
                x[PARAMETER_NAMES.index(f"{c}_IM")] = 0
        return x

    def integral(self, params, component=None, gradient=False):
        """Integral of |A|^2 (``component`` None) or of the term of one component,
        and with ``gradient`` its gradient with respect to the parameters."""
        x = np.asarray(params, dtype=np.float64) if component is None else \
            self._only(params, component)
        if not gradient:
            return float(np.dot(self.weights, self.density.evaluate(self.blocks, x)))
        values, grad = self.density.evaluate(self.blocks, x, True)
        g = grad @ self.weights
        if component is not None:
            # Coefficients of the other components were set to zero, not varied.
            for c in COMPONENTS:
                if c != component:
                    g[PARAMETER_NAMES.index(f"{c}_RE")] = 0
                    g[PARAMETER_NAMES.index(f"{c}_IM")] = 0
        return float(np.dot(self.weights, values)), g

    def laura_coefficients(self, params):
        """The coefficients in Laura++'s normalization: every component
        normalized to unit integral at the current masses and widths, relative
        to the phi(1020) (Laura++'s reference, fixed to 1):
        A_R = c_R n_R sqrt(I_R) / (c_phi n_phi sqrt(I_phi))."""
        rel = {}
        for c in COMPONENTS:
            x = self._only(params, c)
            x[PARAMETER_NAMES.index(f"{c}_RE")] = 1.0
            x[PARAMETER_NAMES.index(f"{c}_IM")] = 0.0
            # Integral of |n_c X_c|^2 with unit coefficient.
            rel[c] = math.sqrt(self.integral(x))
        ref = coefficient(params, "PHI") * rel["PHI"]
        return {c: coefficient(params, c) * rel[c] / ref for c in COMPONENTS}


def compile_isobar_model(vector_lengths, build_dir=None, verbose=False):
    """The model of isobar_model3k.py (declared with :mod:`vecampfit.isobar`),
    compiled for the vector lengths.

    Returns
    -------
    vecampfit.isobar.CompiledIsobarModel
    """
    import isobar_model3k
    return isobar_model3k.build().compile(list(vector_lengths), build_dir=build_dir,
                                        verbose=verbose)


def isobar_fit_fractions(compiled, records, weights, params, normalization, covariance=None):
    """Fit and interference fractions from the isobar layer
    (:func:`vecampfit.isobar.fit_fractions`) with errors propagated from the
    covariance matrix.

    Parameters
    ----------
    compiled : vecampfit.isobar.CompiledIsobarModel
        :func:`compile_isobar_model`.
    records : dict
        Normalization points with ``m13Sq`` and ``m23Sq`` (the grid), or
        their event-buffer fields of the compiled model
        (``compiled.fill_event_buffer``, computed once for many calls).
    weights : array_like
        Their weights.
    params : array_like
        Parameter values in the order of :data:`PARAMETER_NAMES`.
    normalization : dict
        The constants n (:func:`normalization_constants`).
    covariance : array_like, optional
        (10, 10) covariance matrix in the order of :data:`PARAMETER_NAMES`
        (zero rows for fixed parameters, ``Fitter.covariance()``).

    Returns
    -------
    vecampfit.isobar.FitFractions
        Components ``PHI``, ``F2``, ``NR`` (:data:`COMPONENTS`).
    """
    from vecampfit.isobar import fit_fractions as layer_fit_fractions
    x = np.asarray(params, dtype=np.float64)
    if x.shape != (len(PARAMETER_NAMES),):
        raise ValueError(f"params: expected {len(PARAMETER_NAMES)} values "
                         f"({', '.join(PARAMETER_NAMES)}), got shape {x.shape}")
    if "m13Sq" in records or "m23Sq" in records:
        m13sq, m23sq = records_m2(records)
        records = {"m13Sq": m13sq, "m23Sq": m23sq}
    out = layer_fit_fractions(compiled, records, weights,
                              params=dict(zip(PARAMETER_NAMES, x.tolist())),
                              covariance=covariance,
                              covariance_names=None if covariance is None else PARAMETER_NAMES,
                              constants={f"N_{c}": normalization[c] for c in COMPONENTS})
    if out.components != COMPONENTS:
        raise ValueError(f"isobar_model3k.py declares the components {out.components}, the "
                         f"example expects {COMPONENTS}")
    return out


def solution(params, reference=None):
    """Which solution a fit found: ``"main"`` if the f'2(1525) coefficient points
    the same way as the reference (the generated i), ``"second"`` if it is
    roughly inverted (Re(c conj(c_ref)) < 0; the second minimum of the paper)."""
    ref = complex(GENERATED["F2_RE"], GENERATED["F2_IM"]) if reference is None else reference
    c = coefficient(params, "F2") / coefficient(params, "PHI")
    return "main" if (c * ref.conjugate()).real > 0 else "second"


# ----------------------------------------------------------------------------
# Compiled density and the fitter
# ----------------------------------------------------------------------------

def compile_density(vector_lengths, build_dir=None, verbose=False):
    """Compile genfit3k_density.pyx for the vector lengths.

    Returns
    -------
    dict of int to module
    """
    from vecampfit.model_compiler import compile_model
    return compile_model(os.path.join(HERE, "genfit3k_density.pyx"), list(vector_lengths),
                         build_dir=build_dir, verbose=verbose)


def model_constants(m, normalization):
    """The compiled model's constants: kaon mass, radius, normalization factors n."""
    return {"M_K": m["K"], "RESONANCE_RADIUS": RESONANCE_RADIUS, "N_PHI": normalization["PHI"],
            "N_F2": normalization["F2"], "N_NR": normalization["NR"]}


def signal_density(module, precision, m, normalization, gradient=True):
    """The compiled density for :class:`vecampfit.fitter.Fitter` (block form),
    for the masses ``m`` and the normalization factors n."""
    from vecampfit.fitter import Density
    fill = fill_event_buffer_function(m)
    return Density.from_model(module, precision, constants=model_constants(m, normalization),
                              gradient=gradient,
                              fill_event_buffer=lambda records, constants: fill(records),
                              name="B+ -> K+ K+ K-")


def parameter_table(random_coefficients=False):
    """Fit parameters: the generated values; with ``random_coefficients`` the
    f'2(1525) and non-resonant coefficients start uniform in [-10, 10] (real and
    imaginary parts), as Laura++'s random starts."""
    from vecampfit.fitter import FitParameter, ParameterTable
    steps = {"PHI_M": 1e-4, "PHI_G": 1e-4, "F2_M": 1e-3, "F2_G": 1e-3}
    params = []
    for name in PARAMETER_NAMES:
        value = GENERATED[name]
        rnd = 0.0
        if random_coefficients and name in COEFFICIENTS:
            value, rnd = 0.0, 10.0
        params.append(FitParameter(name, value, steps.get(name, 0.05), 0.0, 0.0, rnd))
    return ParameterTable(params, source="genfit3k")


def run_sequence(fitter, ncall=100000):
    """Laura++'s two-stage fit: the f'2(1525) and non-resonant coefficients with
    masses and widths fixed, then also the masses and widths; then HESSE."""
    from vecampfit.fitter import Stage
    fitter.run(Stage(fix_all=True, release=COEFFICIENTS, ncall=ncall),
               Stage(release=MASSES_AND_WIDTHS, ncall=ncall, hesse=True))
    return fitter


# ----------------------------------------------------------------------------
# Files: our pseudoexperiments, Laura++'s pseudoexperiments and fit results
# ----------------------------------------------------------------------------

def experiment_file(directory, experiment):
    """Path of pseudoexperiment ``experiment`` written by generate3k.py."""
    return os.path.join(directory, f"toy3k_{experiment}.root")


def read_events(path, experiment=None, tree=TREE):
    """(m13^2, m23^2) from a ROOT file with tree ``toys`` and branches ``m13Sq``,
    ``m23Sq`` (and ``iExpt`` if ``experiment`` selects one of several)."""
    from vecampfit.root_io import read_events as read
    branches = list(BRANCHES) + (["iExpt"] if experiment is not None else [])
    records, _ = read(path, tree, branches)
    if experiment is not None:
        sel = np.asarray(records["iExpt"]) == experiment
        if not np.any(sel):
            have = sorted(set(np.asarray(records["iExpt"]).tolist()))
            raise ValueError(f"{path}: no events of experiment {experiment} (iExpt has {have})")
        records = {k: np.asarray(v)[sel] for k, v in records.items()}
    return records_m2(records)


def read_table(path, first_column=None, what="table"):
    """Rows of a text table (a dict column -> number per line) whose column
    names stand on a line starting with ``#`` (the first such line whose
    first name is ``first_column``, if given); other ``#`` lines are comments."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} {path!r} does not exist")
    columns, rows = None, []
    with open(path) as f:
        for line in f:
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "#":
                if columns is None and len(tokens) > 1 and first_column in (None, tokens[1]):
                    columns = tokens[1:]
                continue
            if columns is None or len(tokens) != len(columns):
                raise ValueError(f"{path}: malformed line {line!r} (not a {what})")
            rows.append(dict(zip(columns, (float(t) for t in tokens))))
    return rows


def read_laura_results(path=LAURA_RESULTS):
    """Laura++'s fit results: a list of dicts (column -> number), one per experiment."""
    return read_table(path, what="Laura++ results file")


#: Laura++'s result columns of our parameters and fit fractions.
LAURA_COLUMNS = {"PHI_M": "phi_1020_MASS", "PHI_G": "phi_1020_WIDTH",
                 "F2_M": "f'_2_1525_MASS", "F2_G": "f'_2_1525_WIDTH",
                 "FF_PHI": "A0Sq_FitFrac", "FF_F2": "A1Sq_FitFrac", "FF_NR": "A2Sq_FitFrac",
                 "F2_RE": "A1_X", "F2_IM": "A1_Y", "NR_RE": "A2_X", "NR_IM": "A2_Y"}


def common_options(parser):
    """Options shared by the programs: masses, vector length, precision, threads, cache."""
    parser.add_argument("--masses", default="laura",
                        help="B+ and K masses: 'laura' (Laura++'s) or 'pdg<year>' "
                             "(vecampfit.particle_data, e.g. pdg2024)")
    return command_line.add_model_options(parser)


def check_common_options(args):
    """The masses of ``--masses`` after checking the model options (ValueError)."""
    command_line.check_model_options(args)
    return masses(args.masses)


parser = command_line.parser


def program_parser(description, laura_results_help=None):
    """The parser of a program that fits: :func:`common_options`, the grid
    options and ``--laura-file`` (Laura++'s pseudoexperiments), with
    ``laura_results_help`` also ``--laura-results`` (Laura++'s fit results)."""
    p = parser(description)
    common_options(p)
    add_grid_options(p)
    p.add_argument("--laura-file", default=LAURA_TOYS,
                   help="Laura++'s pseudoexperiments (tree toys, branches iExpt, m13Sq, m23Sq)")
    if laura_results_help:
        p.add_argument("--laura-results", default=LAURA_RESULTS, help=laura_results_help)
    return p
