"""Shared parts of the e+e- -> K K-bar pi pi programs: branch names, event
records, the normalized phase-space variables, the background model of the
simulation, and the signal density in the fitter's Python form.

Event files (tree ``tree``; four-momenta (px, py, pz, E) in GeV, float64):

``k1_momentum[4]``, ``k2_momentum[4]``, ``pi1_momentum[4]``, ``pi2_momentum[4]``
    reconstructed four-momenta (K1 = K+ or the first KS, K2 = K- or the
    second KS, pi1 = pi+, pi2 = pi-);
``k1_momentum_gen[4]``, ... ``pi2_momentum_gen[4]``
    generator-level four-momenta;
``reconstructed`` (bool)
    the event passed the simulated reconstruction (MC files; 1 in data and
    background files, which hold reconstructed events only);
``weight`` (float64)
    the data/MC efficiency ratio R of the event (MC), 1 elsewhere;
``signal`` (bool, data files)
    generator truth: signal (1) or background (0).
"""

import os

import numpy as np

from vecampfit import command_line

HERE = os.path.dirname(os.path.abspath(__file__))
import model_kkpipi as model  # noqa: E402

TREE = "tree"
#: Final-state particle keys and their branch stems.
PARTICLES = ("K1", "K2", "pi1", "pi2")
BRANCH = {"K1": "k1_momentum", "K2": "k2_momentum", "pi1": "pi1_momentum", "pi2": "pi2_momentum"}
GEN_BRANCH = {k: v + "_gen" for k, v in BRANCH.items()}


def momenta_of(records, generator_level=False):
    """Four-momenta dict (``K1``, ``K2``, ``pi1``, ``pi2``) from event records.

    Raises
    ------
    KeyError
        A branch is missing (the message names it).
    """
    names = GEN_BRANCH if generator_level else BRANCH
    out = {}
    for k, b in names.items():
        if b not in records:
            raise KeyError(f"event records need branch {b!r} (have {sorted(records)})")
        a = np.asarray(records[b], dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != 4:
            raise ValueError(f"branch {b!r} must hold four-momenta (n, 4), got shape {a.shape}")
        out[k] = a
    return out


def normalized_phi(phi, point):
    """The variables Phi mapped linearly from their ranges
    (:meth:`config.Point.phi_ranges`) to [-1, 1], as an array (7, n)."""
    ranges = point.phi_ranges()
    return np.stack([(2 * np.asarray(phi[k]) - ranges[k][1] - ranges[k][0])
                     / (ranges[k][1] - ranges[k][0]) for k in model.PHI_NAMES])


#: Background model of the simulation: a second-order polynomial in the
#: normalized variables v = normalized_phi (monomial basis, the parameter
#: names of ``vecampfit-polynomial-parameters 2 7 --prefix BKG``), positive
#: everywhere (the negative terms add up to at most 0.9 in absolute value).
#: Smooth and unlike the signal: it has no resonances and depends on the
#: angles only through theta_gamma, theta_phi and theta_f.
BACKGROUND_TRUTH = {
    (0, 0, 0, 0, 0, 0, 0): 1.0,
    (0, 1, 0, 0, 0, 0, 0): -0.3,
    (0, 0, 0, 0, 1, 0, 0): 0.25,
    (2, 0, 0, 0, 0, 0, 0): 0.3,
    (0, 1, 0, 0, 1, 0, 0): 0.15,
    (0, 0, 2, 0, 0, 0, 0): -0.2,
    (0, 0, 0, 0, 0, 2, 0): 0.2,
}


def background_parameter_name(exponents, prefix="BKG"):
    """``BKG_e1_..._e7``, the polynomial tool's name of a term."""
    return prefix + "_" + "_".join(str(e) for e in exponents)


def polynomial(v, coefficients):
    """sum_e c_e prod_d v_d^e_d for v (7, n) and coefficients {exponents: c}."""
    v = np.asarray(v, dtype=np.float64)
    out = np.zeros(v.shape[1])
    for e, c in coefficients.items():
        term = np.full(v.shape[1], float(c))
        for d, k in enumerate(e):
            if k:
                term = term * v[d] ** k
        out += term
    return out


def background_density(momenta, point, coefficients=None):
    """Background density of the simulation at generator-level momenta."""
    coefficients = BACKGROUND_TRUTH if coefficients is None else coefficients
    v = normalized_phi(model.phase_space_variables(momenta), point)
    return polynomial(v, coefficients)


def signal_fields(momenta, point):
    """Signal event-buffer fields (model.EVENT_FIELDS) of four-momenta."""
    c = point.constants()
    return model.signal_event_fields(momenta, c["M_K"], c["M_PI"])


def fill_signal_event_buffer(records, constants):
    """Signal event-buffer fields from ROOT records (reconstructed momenta);
    ``constants``: the model constants (``M_K``, ``M_PI`` used)."""
    return model.signal_event_fields(momenta_of(records), constants["M_K"], constants["M_PI"])


def signal_density_of_momenta(momenta, point, params=None):
    """Signal density S at four-momenta (numpy reference)."""
    params = model.parameter_vector(point.energy_mev) if params is None else params
    return model.signal_density(signal_fields(momenta, point), params, point.energy_mev,
                                point.constants())


def signal_density_numpy(point):
    """The signal density of a point in the fitter's Python form.

    Returns
    -------
    vecampfit.fitter.Density
        ``function(fields, params)`` over :data:`model.EVENT_FIELDS`, the
        parameters :func:`model.parameter_names` of the point's energy, and
        the event-buffer filler :func:`fill_signal_event_buffer`.
    """
    from vecampfit.fitter import Density
    const = point.constants()
    e = point.energy_mev
    return Density(lambda fields, params: model.signal_density(fields, params, e, const),
                   parameters=model.parameter_names(e), event_fields=model.EVENT_FIELDS,
                   fill_event_buffer=lambda records: fill_signal_event_buffer(records, const),
                   name=f"signal {point.name} (numpy)")


def parser(description):
    """Argument parser with the point-selection options shared by the programs."""
    p = command_line.parser(description)
    p.add_argument("--directory", default=".", help="folder of input and output files")
    p.add_argument("--process", action="append", choices=sorted(model.PROCESSES),
                   help="process to use (repeat for several; default: both)")
    p.add_argument("--energy", action="append", type=int, choices=model.ENERGIES_MEV,
                   help="energy point in MeV (repeat for several; default: all five)")
    return p


def add_fit_options(p, numpy_help="use the numpy density instead of the compiled one"):
    """Options of the programs that fit one point at a time: ``--numpy``, the
    model options without ``--threads`` and ``--no-gradient``
    (:mod:`vecampfit.command_line`)."""
    p.add_argument("--numpy", action="store_true", help=numpy_help)
    command_line.add_model_options(p, threads=False)
    return command_line.add_start_options(p, seed=False, fixed_seed=False)


def add_plot_options(p):
    """``--plot`` and ``--no-plot`` (see :func:`plots`)."""
    p.add_argument("--plot", action="store_true", help="plot every point (default: 2000 MeV)")
    p.add_argument("--no-plot", action="store_true", help="no plots")
    return p


def plots(args, point):
    """Whether a program plots ``point``: every point with ``--plot``, none
    with ``--no-plot``, else those at 2000 MeV."""
    return not args.no_plot and (args.plot or point.energy_mev == 2000)


def chi2_summary(histograms):
    """``name chi2/bins, ...`` of histograms (dicts with ``chi2`` and ``ndf``), for one line."""
    return ", ".join(f"{k} {h['chi2']:.1f}/{h['ndf']}" for k, h in histograms.items())


def chi2_lines(histograms, what):
    """One line per histogram, ``<what> <name>: chi2 = X for N bins``, for a result file."""
    return [f"{what} {name}: chi2 = {h['chi2']:.2f} for {h['ndf']} bins"
            for name, h in histograms.items()]


def fit_points(args, compile_density, fit, describe, what="projection"):
    """Fit the points that ``--process`` and ``--energy`` select, one after the other.

    The density is compiled once, for ``--vector-length`` into
    ``--model-cache``, unless ``--numpy`` asks for its numpy form.  Prints
    a line per point: its name, ``describe(*result)``, the time the fit took
    and the chi2 of its histograms (:func:`chi2_summary`).

    Parameters
    ----------
    args : argparse.Namespace
        With ``process`` and ``energy`` (:func:`parser`) and the options of
        :func:`add_fit_options`.
    compile_density : callable
        ``compile_density(vector_lengths, build_dir=...) -> {L: module}``.
    fit : callable
        ``fit(point, modules) -> result`` (``modules`` None with
        ``--numpy``), a tuple whose last item is the point's histograms
        (name -> dict with ``chi2`` and ``ndf``).
    describe : callable
        ``describe(*result) -> str``, what the line says about the fit.
    what : str
        What the histograms are, in the line.

    Returns
    -------
    dict
        Point name -> ``result``.
    """
    import time

    import config
    modules = None if args.numpy else compile_density([args.vector_length],
                                                      build_dir=args.model_cache)
    results = {}
    for point in config.select(args.process, args.energy):
        t = time.perf_counter()
        results[point.name] = result = fit(point, modules)
        print(f"{point.name}: {describe(*result)}, {time.perf_counter() - t:.1f} s; "
              f"{what} chi2/bins: {chi2_summary(result[-1])}")
    return results


def write_report(path, lines):
    """Write a fit's text report, one line each (a fit program's
    ``<kind>_<point>.txt``)."""
    with open(path, "w") as f:
        f.writelines(line + "\n" for line in lines)


def plot_comparison(panels, path, title, measured, fitted, ylabel):
    """Panels side by side, each a measured histogram (points with errors)
    and a fitted curve, with the chi2 of the panel in its title.

    Parameters
    ----------
    panels : dict
        x-axis label -> histogram dict with ``edges``, ``chi2``, ``ndf`` and
        the keys named below.
    path, title : str
    measured : (str, str, str or None)
        Key, legend label and key of the errors (None: Poisson, sqrt(n)).
    fitted : (str, str)
        Key and legend label.
    ylabel : str
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 4))
    for ax, (label, h) in zip(axes, panels.items()):
        c = 0.5 * (h["edges"][1:] + h["edges"][:-1])
        n = h[measured[0]]
        ax.errorbar(c, n, yerr=np.sqrt(n) if measured[2] is None else h[measured[2]], fmt="o",
                    ms=3, color="k", label=measured[1])
        ax.plot(c, h[fitted[0]], "-", color="C3", label=fitted[1])
        ax.set_xlabel(label)
        ax.set_ylabel(ylabel)
        ax.set_title(f"chi2/bins = {h['chi2']:.1f}/{h['ndf']}")
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def compile_signal_models(points, vector_lengths, build_dir=None, verbose=False):
    """The signal model declared in ``declared_model.py`` for each point, compiled.

    All amplitudes are parameters of the densities (the fit fixes the
    normalization and the phase); the points of one process share one
    compiled module, as their models differ only in the names of the
    production amplitudes.

    Returns
    -------
    dict
        ``{point name: (CompiledAmplitudeModel, CascadeModel)}``.
    """
    import declared_model
    out = {}
    for point in points:
        c = declared_model.cascade(point.process, point.energy_mev)
        model_of_point, _ = declared_model.amplitude_model(point.process, point.energy_mev,
                                                           fixed=False)
        out[point.name] = (model_of_point.compile(tuple(vector_lengths), build_dir=build_dir,
                                                  verbose=verbose), c)
    return out


def signal_density(signal, point, precision="float64", vector_length=None):
    """The signal density of a point for the fitter.

    Parameters
    ----------
    signal : dict or None
        The declared model (:func:`compile_signal_models`), the hand-written
        modules (:func:`compile_signal_density`), or None for the numpy
        form (:func:`signal_density_numpy`).
    point : config.Point
    precision : {"float64", "float32"}
    vector_length : int, optional

    Returns
    -------
    vecampfit.fitter.Density
        Its events are the records of the point's files (four-momenta).
    """
    if signal is None:
        return signal_density_numpy(point)
    if point.name not in signal:
        return signal_density_cython(signal, point, precision, vector_length)
    compiled, c = signal[point.name]
    return compiled.density(precision, vector_length, name=f"signal {point.name}",
                            map_records=lambda records: c.event_records(momenta_of(records)))


def compile_signal_density(vector_lengths, build_dir=None, verbose=False):
    """Compile ``signal_density.pyx`` for the given vector lengths
    (``vecampfit.model_compiler.compile_model``); returns ``{L: module}``."""
    from vecampfit.model_compiler import compile_model
    return compile_model(os.path.join(HERE, "signal_density.pyx"), list(vector_lengths),
                         build_dir=build_dir, verbose=verbose)


def signal_density_cython(modules, point, precision="float64", vector_length=None):
    """The compiled signal density of a point for the fitter.

    Parameters
    ----------
    modules : dict
        ``{L: module}`` from :func:`compile_signal_density`.
    point : config.Point
        Selects the parameter names (energy) and the constants (process).
    precision : {"float64", "float32"}
    vector_length : int, optional
        Which compiled module (required with several).

    Returns
    -------
    vecampfit.fitter.Density
        With the event-buffer filler :func:`fill_signal_event_buffer`.
    """
    from vecampfit.fitter import Density
    return Density.from_model(modules, precision, constants=point.constants(),
                              vector_length=vector_length, model=f"E{point.energy_mev}",
                              fill_event_buffer=fill_signal_event_buffer,
                              name=f"signal {point.name}")


#: The polynomial code the compiled efficiency and background densities
#: cimport: file name -> the arguments of ``vecampfit-polynomial-parameters``
#: that write it (``{}`` stands for the file).  The efficiency correction
#: P_1(Phi) is the paper's call (orders 1 and 2, the active order fixed when
#: compiling); the background is the full second-order polynomial P_2(Phi).
POLYNOMIAL_CODE = {
    "efficiency_correction_polynomial.pxd":
        "2 7 --minimum-order=1 --preprocessor-order --subroutine {} "
        "--name efficiency_correction --prefix EFFCOR",
    "efficiency_correction_polynomial_gradient.pxd":
        "2 7 --minimum-order=1 --preprocessor-order --gradient {} "
        "--name efficiency_correction --prefix EFFCOR",
    "background_polynomial.pxd": "2 7 --subroutine {} --name background_polynomial --prefix BKG",
    "background_polynomial_gradient.pxd":
        "2 7 --gradient {} --name background_polynomial --prefix BKG",
}


def polynomial_code(build_dir=None):
    """Write the polynomial tool's code of :data:`POLYNOMIAL_CODE` and return its folder.

    The ``.pxd`` files are emitted by ``vecampfit-polynomial-parameters``
    (:func:`vecampfit.polynomial_parameters.generated_code`) into the folder
    ``epem_kkpipi_polynomial_code`` of the model cache, each time a density
    is compiled, so that the compiled code is always the tool's current
    output; each file is replaced whole, so that programs compiling at the
    same time never read a half-written one.

    Parameters
    ----------
    build_dir : str, optional
        Folder of the compiled models (default: vecampfit's cache,
        :func:`vecampfit.model_compiler.default_cache_dir`).

    Returns
    -------
    str
        The folder holding the ``.pxd`` files.

    Raises
    ------
    RuntimeError
        If the tool could not write a file.
    """
    from vecampfit.model_compiler import default_cache_dir
    from vecampfit.polynomial_parameters import generated_code
    return generated_code(POLYNOMIAL_CODE, os.path.join(
        os.path.abspath(build_dir) if build_dir is not None else default_cache_dir(),
        "epem_kkpipi_polynomial_code"))


def compile_polynomial_density(source, vector_lengths, build_dir=None, verbose=False,
                               extra_compile_args=()):
    """Compile a density of this folder that cimports the code of
    :data:`POLYNOMIAL_CODE` (written by :func:`polynomial_code`); returns
    ``{L: module}`` (``vecampfit.model_compiler.compile_model``)."""
    from vecampfit.model_compiler import compile_model
    return compile_model(os.path.join(HERE, source), list(vector_lengths), build_dir=build_dir,
                         include_dirs=(polynomial_code(build_dir),),
                         extra_compile_args=list(extra_compile_args), verbose=verbose)


def compile_efficiency_density(vector_lengths, build_dir=None, verbose=False):
    """Compile ``efficiency_density.pyx`` (with the polynomial tool's code,
    :func:`polynomial_code`, and ``-DPOLYNOMIAL_ORDER=1``); returns ``{L: module}``."""
    return compile_polynomial_density("efficiency_density.pyx", vector_lengths, build_dir,
                                      verbose, extra_compile_args=["-DPOLYNOMIAL_ORDER=1"])
