"""Generate B+ -> K+ K+ K- pseudoexperiments from Laura++'s GenFit3K model (accept-reject).

Writes ``toy3k_N.root`` (N = first, ...) into ``--directory``: tree ``toys``,
branches ``iExpt``, ``iEvtWithinExpt``, ``m13Sq``, ``m23Sq``, ``m12Sq``
(GeV^2), Laura++'s layout, folded onto m13Sq < m23Sq as Laura++'s files
unless ``--no-fold``.  The model of isobar_model3k.py at the generated
values, by accept-reject with a proposal that follows the narrow phi(1020)
(vecampfit.generation.BandProposal).
"""

import os
import time

import numpy as np

import genfit3k
import isobar_model3k
from vecampfit import command_line, generation, isobar, kinematics
from vecampfit.root_io import write_tree


class Generator:
    """Accept-reject generator of the model at the generated values (the grid
    ``records``, ``weights`` gives the constants n and the bound): proposals
    from vecampfit.generation.BandProposal, uniform with Cauchy bands at the
    phi(1020) in m13^2 and m23^2 (probability ``band`` each)."""

    def __init__(self, records, weights, band=0.25):
        self.model = isobar_model3k.build()
        self.constants = isobar.unit_normalization(self.model, records, weights)
        mb, mk, g = isobar_model3k.M_B, isobar_model3k.M_K, genfit3k.GENERATED
        self.proposal = generation.BandProposal(4 * mk * mk, (mb - mk) ** 2, g["PHI_M"],
                                                g["PHI_G"], band)
        points = records["m13Sq"], records["m23Sq"]
        self.bound = 1.2 * float(np.max(self.density(*points) / self.proposal.density(*points)))

    def density(self, m13sq, m23sq):
        """S(m13^2, m23^2) of the model at the generated values."""
        return self.model.density({"m13Sq": m13sq, "m23Sq": m23sq}, constants=self.constants)

    def events(self, n, rng, fold=True):
        """(m13^2, m23^2) of n events."""
        mb, mk = isobar_model3k.M_B, isobar_model3k.M_K
        m13sq, m23sq = generation.accept_reject(
            self.density, self.proposal, n, bound=self.bound, seed=rng,
            inside=lambda u, v: kinematics.dalitz_inside(u, v, mb, mk, mk, mk))
        return (np.minimum(m13sq, m23sq), np.maximum(m13sq, m23sq)) if fold else (m13sq, m23sq)


def main(argv=None):
    p = command_line.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="output folder")
    p.add_argument("--experiments", type=int, default=1, help="number of pseudoexperiments")
    p.add_argument("--first", type=int, default=0, help="number of the first pseudoexperiment")
    p.add_argument("--events", type=int, default=5000, help="events per pseudoexperiment")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: from the system, printed)")
    p.add_argument("--no-fold", action="store_true",
                   help="keep K+_1 and K+_2 as generated instead of m13Sq < m23Sq")
    args = p.parse_args(argv)
    if args.experiments < 1 or args.events < 1 or args.first < 0 or \
            not os.path.isdir(args.directory):
        p.error("--experiments and --events must be positive, --first non-negative and "
                "--directory a folder")
    args.seed = int.from_bytes(os.urandom(4), "little") if args.seed is None else args.seed
    print(f"Random seed: {args.seed}")
    t0 = time.perf_counter()
    gen = Generator(*genfit3k.normalization_grid()[:2])
    rng = np.random.default_rng(args.seed)
    for k in range(args.first, args.first + args.experiments):
        m13sq, m23sq = gen.events(args.events, rng, fold=not args.no_fold)
        n, path, mb, mk = len(m13sq), genfit3k.experiment_file(args.directory, k), \
            isobar_model3k.M_B, isobar_model3k.M_K
        write_tree(path, {"iExpt": np.full(n, k, np.int32), "iEvtWithinExpt": np.arange(
            n, dtype=np.int32), "m13Sq": m13sq, "m23Sq": m23sq,
            "m12Sq": mb * mb + 3 * mk * mk - m13sq - m23sq}, genfit3k.TREE)
        print(f"{path}: {n} events")
    print(f"generation time: {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
