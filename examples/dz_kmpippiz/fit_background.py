"""Fit the background polynomial of the D0 -> K- pi+ pi0 example to a background sample.

Reads ``data_background.root`` (the background sample) and ``mc_signal.root``
(the normalization MC) from ``--directory``, starts from
parameters_background.dat and writes ``parameters_background_result.dat``
and ``results_background.txt`` there.  The signal fit reads the result.
"""

import os

import common
from vecampfit.fitter import Fitter, Likelihood, Stage, read_parameter_file


def main(argv=None):
    p = common.add_fit_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--parameters", default=os.path.join(common.HERE, "parameters_background.dat"),
                   help="initial parameter file")
    args = p.parse_args(argv)
    d = args.directory
    likelihood = Likelihood(read_parameter_file(args.parameters), precision=args.precision,
                            vector_length=args.vector_length, threads=args.threads,
                            on_invalid="large")
    # The background polynomial is the density of this fit (no further background).
    point = likelihood.add_point(common.background_density(args.vector_length, args.precision,
                                                           args.model_cache))
    point.load_normalization_file(os.path.join(d, "mc_signal.root"), common.TREE,
                                  list(common.BRANCHES))
    point.load_data_file(os.path.join(d, "data_background.root"), common.TREE,
                         list(common.BRANCHES))
    fitter = Fitter(likelihood, seed=args.seed, randomize=not args.fixed_seed,
                    use_gradient=not args.no_gradient)
    fitter.run(Stage(ncall=100000, hesse=True))
    fitter.write_results(parameters=os.path.join(d, "parameters_background_result.dat"),
                         text=os.path.join(d, "results_background.txt"))
    print(open(os.path.join(d, "results_background.txt")).read())
    return fitter


if __name__ == "__main__":
    main()
