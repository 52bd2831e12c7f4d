"""Command-line options that fit programs share.

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
"""

import argparse

__all__ = ["HelpFormatter", "add_model_options", "add_start_options", "check_model_options",
           "parse_ranges", "parser"]


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
