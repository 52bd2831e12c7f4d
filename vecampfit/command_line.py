"""Command-line options, and the files between the steps, that fit programs share.

A program that fits with vecampfit chooses how its densities are compiled
and evaluated (vector length, precision, threads, where compiled models are
kept) and how the fit starts (seed of the random initial values, or the
parameter file's values; analytic or numerical gradient).  These functions
add those options to an :class:`argparse.ArgumentParser` with one spelling
and one meaning in every program::

    from vecampfit import command_line

    p = command_line.parser("Fit the signal.")
    p.add_argument("--directory", default=".")
    command_line.add_model_options(p)
    command_line.add_start_options(p)
    args = p.parse_args()
    command_line.check_model_options(args)      # ValueError naming the option

    likelihood = Likelihood(table, precision=args.precision,
                            vector_length=args.vector_length, threads=args.threads)
    fitter = Fitter(likelihood, seed=args.seed, randomize=not args.fixed_seed,
                    use_gradient=False if args.no_gradient else None)

A program made of steps that are programs of their own (generate, fit,
plot) passes its options on with :func:`forward_options`, draws its seed
with :func:`seed_or_random`, and keeps what one step hands to the next in
JSON files (:func:`write_json`, :func:`read_json`): the fit's result
(:func:`fit_summary`), printed as a table with pulls against the
generation's values (:func:`values_table`), and its fit fractions
(:func:`fractions_report`)::

    shared = command_line.forward_options(args, ("directory", "vector_length"),
                                          optional=("model_cache", "threads"))
    generate.main(shared + command_line.forward_options(args, ("events", "seed")))
"""

import argparse
import json
import os

from .atomic_files import atomic_write_text

__all__ = ["HelpFormatter", "add_model_options", "add_start_options", "check_model_options",
           "fit_summary", "forward_options", "fractions_report", "parse_ranges", "parser",
           "read_json", "seed_or_random", "values_table", "write_json"]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Appends "(default: ...)" to an option's help unless the help already
    says it or there is no default to show (None, False)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "(default" in text or action.default is None or action.default is False:
            return text
        return super()._get_help_string(action)


def parser(description, **kwargs):
    """An :class:`argparse.ArgumentParser` with :class:`HelpFormatter`.

    Parameters
    ----------
    description : str
        What the program does (the first paragraph of its docstring, say).
    **kwargs
        Further arguments of :class:`argparse.ArgumentParser`.
    """
    return argparse.ArgumentParser(description=description, formatter_class=HelpFormatter,
                                   **kwargs)


def add_model_options(parser, *, threads=True, precision=True, vector_length=8):
    """Add ``--vector-length``, ``--precision``, ``--threads`` and ``--model-cache``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    threads : bool
        Add ``--threads`` (OpenMP threads of the likelihood; None: all CPUs).
    precision : bool
        Add ``--precision`` (float64 or float32 densities).
    vector_length : int
        Default of ``--vector-length`` (events per block, 1..64).

    Returns
    -------
    argparse.ArgumentParser
        ``parser``.
    """
    parser.add_argument("--vector-length", type=int, default=vector_length,
                        help="vector length L: events per block of the densities (1..64)")
    if precision:
        parser.add_argument("--precision", choices=("float64", "float32"), default="float64",
                            help="precision of the densities")
    if threads:
        parser.add_argument("--threads", type=int, default=None,
                            help="OpenMP threads (default: all CPUs)")
    parser.add_argument("--model-cache", default=None,
                        help="folder for compiled models (default: vecampfit's cache)")
    return parser


def add_start_options(parser, *, seed=True, fixed_seed=True, gradient=True):
    """Add ``--seed``, ``--fixed-seed`` and ``--no-gradient``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    seed, fixed_seed, gradient : bool
        Which of the three to add.

    Returns
    -------
    argparse.ArgumentParser
        ``parser``.
    """
    if seed:
        parser.add_argument("--seed", type=int, default=None,
                            help="seed of the random initial values (default: from the system, "
                                 "printed)")
    if fixed_seed:
        parser.add_argument("--fixed-seed", action="store_true",
                            help="start from the parameter file's values (no randomization)")
    if gradient:
        parser.add_argument("--no-gradient", action="store_true",
                            help="let Minuit differentiate numerically instead of the analytic "
                                 "gradient")
    return parser


def check_model_options(args):
    """Check the values of :func:`add_model_options`' options.

    Parameters
    ----------
    args : argparse.Namespace

    Raises
    ------
    ValueError
        ``--vector-length`` outside 1..64, or ``--threads`` below 1, naming
        the option and the value.
    """
    if not 1 <= args.vector_length <= 64:
        raise ValueError(f"--vector-length must be in 1..64, got {args.vector_length}")
    threads = getattr(args, "threads", None)
    if threads is not None and threads < 1:
        raise ValueError(f"--threads must be positive, got {threads}")


def parse_ranges(text, option="--experiments"):
    """Non-negative integers from a list of numbers and ranges.

    ``"3"`` gives ``[3]``, ``"0-9"`` gives ``[0, 1, ..., 9]`` (both ends
    included), ``"1,4,7"`` gives ``[1, 4, 7]``, and the forms mix:
    ``"0-2,5"`` gives ``[0, 1, 2, 5]`` (in the order written).

    Parameters
    ----------
    text : str
        Comma-separated numbers ``N`` and ranges ``N-M`` with ``N <= M``.
    option : str
        The option's name, for the error message.

    Returns
    -------
    list of int

    Raises
    ------
    ValueError
        Malformed text, a range whose end is below its start, or a negative
        number, naming ``option`` and the text.
    """
    out = []
    try:
        for part in text.split(","):
            a, _, b = part.partition("-")
            a, b = int(a), int(b) if b else int(a)
            if b < a or a < 0:
                raise ValueError
            out.extend(range(a, b + 1))
    except ValueError:
        raise ValueError(f"{option}: expected non-negative N, N-M (N <= M) or a comma-separated "
                         f"list of them, got {text!r}") from None
    return out


def forward_options(args, names, *, optional=()):
    """The command-line arguments that give another program the values of ``args``.

    ``names`` are attribute names of ``args`` (``"vector_length"``); each
    becomes ``--vector-length VALUE`` (the attribute's underscores as
    dashes), a list or tuple value ``--name V1 V2 ...``.  Values are written
    with :func:`str`, so that the other program parses the same numbers.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of this program.
    names : iterable of str
        Options passed on whatever their value.
    optional : iterable of str
        Options passed on only when set (a value other than None, False,
        0 or empty), so that the other program keeps its own default
        otherwise.

    Returns
    -------
    list of str
        ``names`` in their order, then the ``optional`` ones that are set.

    Raises
    ------
    AttributeError
        A name that is not an option of ``args``.
    """
    out = []
    for name, always in [(n, True) for n in names] + [(n, False) for n in optional]:
        value = getattr(args, name)
        if not always and not value:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        out += ["--" + name.replace("_", "-"), *(str(v) for v in values)]
    return out


def seed_or_random(seed):
    """``seed``, or a seed drawn from the operating system when it is None.

    The drawn seed is a uniform integer in :math:`[0, 2^{32})` from
    :func:`os.urandom` (4 bytes, little-endian), so that a program can
    print it and the run be repeated with ``--seed``.

    Parameters
    ----------
    seed : int or None

    Returns
    -------
    int
    """
    return seed if seed is not None else int.from_bytes(os.urandom(4), "little")


def read_json(path, missing=None):
    """The content of a JSON file that an earlier step of a program wrote.

    Parameters
    ----------
    path : str or os.PathLike
    missing : str, optional
        What to do when the file is not there (``"run generate.py first"``):
        with it, a missing file raises :class:`FileNotFoundError` whose
        message is ``f"{path} not found: {missing}"``; without it, the error
        of :func:`open`.

    Returns
    -------
    object
        The decoded content (:func:`json.load`).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    """
    if missing is not None and not os.path.exists(path):
        raise FileNotFoundError(f"{path} not found: {missing}")
    with open(path) as f:
        return json.load(f)


def write_json(path, content):
    """Write ``content`` as JSON (indented by one space), atomically.

    The file appears complete under its name or not at all
    (:func:`vecampfit.atomic_files.atomic_write_text`), so that a step
    that is interrupted never leaves a half-written file for the next.

    Parameters
    ----------
    path : str or os.PathLike
    content : object
        Anything :func:`json.dumps` encodes.
    """
    atomic_write_text(path, json.dumps(content, indent=1))


def fit_summary(fitter, values, free):
    """The result of a fit as plain numbers, for a JSON file.

    Parameters
    ----------
    fitter : vecampfit.fitter.Fitter
        After MIGRAD (and HESSE, for the errors and the error matrix).
    values : dict
        Every parameter's value before the fit; the fitted ones are
        replaced by the fit's.
    free : list of str
        The fitted parameters whose errors and error matrix are kept.

    Returns
    -------
    dict
        ``free``; ``values`` (every parameter, float); ``errors`` (of the
        free ones); ``covariance``, the error matrix
        :math:`V_{ab} = \\operatorname{cov}(a, b)` of the free ones in the
        order of ``free`` (nested lists); ``fval`` (:math:`F` at the
        minimum), ``valid``, ``edm``; ``fit_wall_time`` (s).
    """
    m = fitter.minuit
    fitted = dict(values)
    fitted.update(zip(m.parameters, (float(v) for v in m.values)))
    return {"free": free, "values": fitted, "errors": {n: float(m.errors[n]) for n in free},
            "covariance": [[float(m.covariance[a, b]) for b in free] for a in free],
            "fval": float(m.fval), "valid": bool(m.valid), "edm": float(m.fmin.edm),
            "fit_wall_time": fitter.wall_time}


def values_table(names, values, errors, truth=None, *, widths=(10, 9, 8)):
    """Fitted parameters as a text table, with pulls when the truth is known.

    One line per parameter: name, value, error and, with ``truth``, the
    true value and the pull :math:`(x - x_\\text{true}) / \\sigma_x`.

    Parameters
    ----------
    names : iterable of str
    values, errors : dict
        By name.
    truth : dict, optional
        True values by name (the generation's).
    widths : (int, int, int)
        Widths of the name, value (and true value) and error columns.

    Returns
    -------
    str
        A header line and a line per parameter.
    """
    wn, wv, we = widths
    lines = [f"{'parameter':{wn}s} {'value':>{wv}s} {'error':>{we}s}"
             + (f" {'truth':>{wv}s} {'pull':>6s}" if truth else "")]
    for n in names:
        line = f"{n:{wn}s} {values[n]:{wv}.4f} {errors[n]:{we}.4f}"
        if truth:
            line += f" {truth[n]:{wv}.4f} {(values[n] - truth[n]) / errors[n]:6.2f}"
        lines.append(line)
    return "\n".join(lines)


def fractions_report(fractions, truth=None, *, interference=False):
    """Fit fractions as a text table and as plain numbers, for a JSON file.

    Parameters
    ----------
    fractions : vecampfit.amplitudes.FitFractions
        At the fit's values, with their errors.
    truth : vecampfit.amplitudes.FitFractions, optional
        At the generation's values: adds a column ``truth %``.
    interference : bool
        List the interference fractions too (:meth:`FitFractions.table`).

    Returns
    -------
    text : str
        The table in percent (:meth:`FitFractions.table`).
    numbers : dict
        ``fractions``: group -> [fraction :math:`F_G`, its fit error, its
        error from the finite normalization sample]; with ``truth``,
        ``truth_fractions``: group -> fraction (all dimensionless).
    """
    text = fractions.table(interference=interference)
    numbers = {"fractions": {g: [float(fractions.matrix[k, k]), float(fractions.errors[k, k]),
                                 float(fractions.normalization_errors[k, k])]
                             for k, g in enumerate(fractions.components)}}
    if truth is not None:
        numbers["truth_fractions"] = {g: float(truth.matrix[k, k])
                                      for k, g in enumerate(truth.components)}
        lines = text.split("\n")
        lines[0] += f" {'truth %':>9s}"
        for k, g in enumerate(fractions.components):
            lines[k + 1] += f" {100 * truth.matrix[k, k]:9.3f}"
        text = "\n".join(lines)
    return text, numbers
