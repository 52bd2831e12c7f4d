"""Generate B+ -> K+ K+ K- pseudoexperiments from Laura++'s GenFit3K model (accept-reject).

Writes ``toy3k_N.root`` for N = first .. first + count - 1 into
``--directory``: tree ``toys`` with branches ``iExpt``, ``iEvtWithinExpt``
(int32), ``m13Sq``, ``m23Sq``, ``m12Sq`` (float64, GeV^2), Laura++'s layout.
Events follow the model of isobar_model3k.py at the generated values
(phi(1020) 1, f'2(1525) i, non-resonant 1 in Laura++'s normalization),
drawn by accept-reject with a proposal that follows the narrow phi(1020)
band (``--proposal phase-space``: uniform phase space through
``vecampfit.isobar.generate_events``, much slower).  Like Laura++'s files
the Dalitz plot is folded (m13Sq < m23Sq; the two K+ are identical) unless
``--no-fold``.
"""

import os
import time

import numpy as np

import genfit3k
import isobar_model3k
from vecampfit import command_line, isobar, kinematics
from vecampfit.root_io import write_tree


class Generator:
    """Accept-reject generator of the model at the generated values.

    The proposal g is a mixture of a uniform density over the rectangle
    enclosing the Dalitz plot and, with probability ``band`` each, a
    Breit-Wigner (Cauchy) band in m13^2 or m23^2 at the phi(1020) mass and
    width (the other variable uniform).  A point drawn from g inside the
    Dalitz plot is accepted with probability S / (k g), k = 1.2 times the
    largest S/g on the normalization grid, so that the accepted points are
    distributed as S over the Dalitz plot.

    Parameters
    ----------
    m : dict
        Mass constants (:func:`genfit3k.masses`).
    records, weights : from :func:`genfit3k.normalization_grid`
        The grid: the constants n (unit normalization) and the bound k.
    band : float
        Probability of each Breit-Wigner band, in [0, 0.5).
    """

    def __init__(self, m, records, weights, band=0.25):
        if not 0 <= band < 0.5:
            raise ValueError(f"band must be in [0, 0.5), got {band}")
        self.model, self.masses, self.band = isobar_model3k.build(), m, band
        self.constants = dict(m, **isobar.unit_normalization(self.model, records, weights,
                                                             constants=m))
        self.lower, self.upper = (2 * m["M_KP"]) ** 2, (m["M_B"] - m["M_KP"]) ** 2
        m0, g0 = genfit3k.GENERATED["PHI_M"], genfit3k.GENERATED["PHI_G"]
        self.center, self.half_width = m0 * m0, m0 * g0
        self.cdf_range = np.arctan((np.array([self.lower, self.upper]) - self.center)
                                   / self.half_width)
        s = self.density(records["m13Sq"], records["m23Sq"])
        self.bound = 1.2 * float(np.max(s / self.proposal_density(records["m13Sq"],
                                                                   records["m23Sq"])))

    def density(self, m13sq, m23sq):
        """S(m13^2, m23^2) of the model at the generated values."""
        return self.model.density({"m13Sq": m13sq, "m23Sq": m23sq}, constants=self.constants)

    def proposal_density(self, m13sq, m23sq):
        """g(m13^2, m23^2) of the band proposal (per GeV^4)."""
        a, b = self.cdf_range
        length = self.upper - self.lower

        def cauchy(s):
            x = (s - self.center) / self.half_width
            return 1 / (self.half_width * (1 + x * x) * (b - a))
        return (1 - 2 * self.band) / length ** 2 + self.band * (cauchy(m13sq) + cauchy(m23sq)) \
            / length

    def propose(self, n, rng):
        """n points (m13^2, m23^2) drawn from g."""
        u, v = (rng.uniform(self.lower, self.upper, n) for _ in range(2))
        kind = rng.random(n)
        bw = self.center + self.half_width * np.tan(rng.uniform(*self.cdf_range, n))
        return (np.where(kind < self.band, bw, u),
                np.where((kind >= self.band) & (kind < 2 * self.band), bw, v))

    def events(self, n, rng, fold=True, batch=50_000):
        """(m13^2, m23^2) of n events."""
        out13, out23 = [], []
        while sum(map(len, out13)) < n:
            u, v = self.propose(batch, rng)
            ok = np.flatnonzero(kinematics.dalitz_inside(u, v, self.masses["M_B"],
                                                         *[self.masses["M_KP"]] * 3))
            ratio = self.density(u[ok], v[ok]) / (self.bound * self.proposal_density(u[ok], v[ok]))
            if ratio.size and ratio.max() > 1:
                raise ValueError(f"density / proposal exceeds the bound {self.bound!r} by "
                                 f"{ratio.max()!r}")
            keep = ok[rng.random(ok.size) < ratio]
            out13.append(u[keep])
            out23.append(v[keep])
        m13sq, m23sq = np.concatenate(out13)[:n], np.concatenate(out23)[:n]
        return (np.minimum(m13sq, m23sq), np.maximum(m13sq, m23sq)) if fold else (m13sq, m23sq)


def main(argv=None):
    p = command_line.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="output folder")
    p.add_argument("--experiments", type=int, default=1, help="number of pseudoexperiments")
    p.add_argument("--first", type=int, default=0, help="number of the first pseudoexperiment")
    p.add_argument("--events", type=int, default=5000, help="events per pseudoexperiment")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: from the system, printed)")
    p.add_argument("--masses", default="laura",
                   help="B+ and K masses: 'laura' (Laura++'s) or 'pdg<year>'")
    p.add_argument("--proposal", choices=("bands", "phase-space"), default="bands",
                   help="proposal of the accept-reject generation")
    p.add_argument("--no-fold", action="store_true",
                   help="keep K+_1 and K+_2 as generated instead of m13Sq < m23Sq")
    args = p.parse_args(argv)
    if args.experiments < 1 or args.events < 1 or args.first < 0:
        p.error("--experiments and --events must be positive, --first non-negative")
    if not os.path.isdir(args.directory):
        p.error(f"--directory {args.directory!r} does not exist")
    try:
        m = genfit3k.masses(args.masses)
    except ValueError as exc:
        p.error(str(exc))
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    print(f"Random seed: {args.seed}")
    t0 = time.perf_counter()
    gen = Generator(m, *genfit3k.normalization_grid(m)[:2])
    rng = np.random.default_rng(args.seed)
    for k in range(args.first, args.first + args.experiments):
        if args.proposal == "bands":
            m13sq, m23sq = gen.events(args.events, rng, fold=not args.no_fold)
        else:
            ev = isobar.generate_events(gen.model, args.events, constants=gen.constants, seed=rng)
            m13sq, m23sq = ev["m13Sq"], ev["m23Sq"]
            if not args.no_fold:
                m13sq, m23sq = np.minimum(m13sq, m23sq), np.maximum(m13sq, m23sq)
        n, path = len(m13sq), genfit3k.experiment_file(args.directory, k)
        write_tree(path, {"iExpt": np.full(n, k, np.int32), "iEvtWithinExpt":
                          np.arange(n, dtype=np.int32), "m13Sq": m13sq, "m23Sq": m23sq,
                          "m12Sq": m["M_B"] ** 2 + 3 * m["M_KP"] ** 2 - m13sq - m23sq},
                   genfit3k.TREE)
        print(f"{path}: {n} events")
    print(f"generation time: {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
