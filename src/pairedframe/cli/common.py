"""The ``pairedframe`` command: a typer app; each subcommand lives in its own module."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import traceback
import typing
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import typer
from rich.console import Console

from pairedframe.cli.stdin_run import STDIN_ARGUMENT, refuse_stdin_qrels, stdin_path, stdin_readable
from pairedframe.cli.text_table import column_texts, write_box_table
from pairedframe.errors import PairedFrameError, warning_source
from pairedframe.io.detect import run_name
from pairedframe.report.output import json_text
from pairedframe.report.table_latex import latex_escape, latex_number, latex_row
from pairedframe.report.table_markdown import markdown_escape

app = typer.Typer(
    name="pairedframe", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    rich_markup_mode="rich",    # the default differs across typer versions; help texts escape \[ for it
    help="trec_eval-exact evaluation and honest paired comparisons of retrieval runs.")



def _print_version(asked: bool) -> None:
    """``--version``: the package's version on stdout, then exit 0 before any command runs."""
    if asked:
        from importlib.metadata import version    # the installed package's, as pyproject.toml gives it

        typer.echo(f"pairedframe {version('pairedframe')}")
        raise typer.Exit()


@app.callback()
def _options(version: typing.Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print pairedframe's version and exit.")] = False) -> None:
    # the options of `pairedframe` itself, before any command (no docstring: the app's help= stays its help)
    return None


EXIT_USAGE = 2
#: A bug, not a verdict: distinct from 1 (a --fail-if gate holds) so a CI gate never mistakes a crash for it.
EXIT_INTERNAL = 3
#: stdout closed by the reader (``| head``): 128 + SIGPIPE, the status a shell reports for a tool that
#: SIGPIPE ended (cat, grep), so ``set -o pipefail`` still sees the output was cut; nothing is printed.
EXIT_BROKEN_PIPE = 141


def _quiet_broken_pipe() -> None:
    """End quietly on a closed stdout: point it at /dev/null so that Python's flush at exit, which
    would fail again, has nowhere to fail, then exit with :data:`EXIT_BROKEN_PIPE`."""
    with contextlib.suppress(OSError, ValueError):  # not a real file (a test runner's buffer)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    raise typer.Exit(EXIT_BROKEN_PIPE)


def fail(message: str) -> None:
    """Print an error to stderr and exit with code 2 (no traceback)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"pairedframe: error: {message}", markup=False)
    raise typer.Exit(EXIT_USAGE)


def friendly_errors(fn: Callable) -> Callable:
    """Turn expected errors into one line on stderr and exit code 2, any other exception (a bug) into its
    traceback and exit code 3 (never 1, which means a --fail-if gate holds), and warnings into
    ``pairedframe: warning: ...`` lines on stderr (the caller's line means nothing on the command line;
    ``warning (from pyspark): ...`` for another package's, :class:`_WarningPrinter`).
    An argument error of the library names the flag the user typed, not the Python parameter
    (:func:`name_flags`). A stdout closed by its reader (``| head -1``) ends the command quietly
    with exit code 141 (:data:`EXIT_BROKEN_PIPE`), as a tool ended by SIGPIPE."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            refuse_stdin_qrels(kwargs.get("qrels"))
            with warnings.catch_warnings(), stdin_readable():
                warnings.showwarning = _WarningPrinter()    # each distinct warning once per command
                result = fn(*args, **kwargs)
            sys.stdout.flush()      # a closed pipe shows here, not at exit, where it cannot be caught
            return result
        except BrokenPipeError:
            _quiet_broken_pipe()
        except Exception as exc:  # noqa: BLE001 -- the user's errors get a sentence, anything else is a bug
            if not isinstance(exc, _user_errors()):
                _internal_error(exc)
            if isinstance(exc, FileNotFoundError):       # the library's own message may say it already
                said = str(exc.filename or exc)
                fail(said if "no such file" in said else f"no such file: {said}")
            fail(name_flags(str(exc), command_flags(fn)))

    return wrapper


def _user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that report bad input: DuckDB's only once something loaded duckdb (the default
    polars engine never does, and importing it here would cost every command its start-up)."""
    errors = (PairedFrameError, ValueError, FileNotFoundError, TypeError, OSError, EOFError, pl.exceptions.PolarsError)
    duckdb = sys.modules.get("duckdb")
    return (*errors, duckdb.Error) if duckdb is not None else errors


def _internal_error(exc: Exception) -> typing.NoReturn:
    """Anything else is a bug: say so, keep the traceback (typer's and click's own exits pass through)."""
    if type(exc).__module__.split(".")[0] in ("typer", "click"):    # Exit, Abort, usage errors
        raise exc
    traceback.print_exc()
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"pairedframe: internal error ({type(exc).__name__}): {exc} -- please report it with the "
        f"command line; exit code {EXIT_INTERNAL}", markup=False)
    raise typer.Exit(EXIT_INTERNAL) from exc


#: The library's parameter -> the command's option, where the names differ (``measures=`` is ``-m/--measure``).
_PARAMETER_OF_OPTION = {"measures": "measure", "max_delta_plots": "delta_plots"}


def command_flags(command: Callable) -> dict[str, str]:
    """{library parameter name: the long flag the command spells it with} for every option of the typer
    command function ``command`` (``family_by`` -> ``--family-by``; ``measures`` -> ``--measure``, where the
    command's parameter ``measure`` stands for the library's ``measures``).  Read from the command's own
    ``typer.Option`` declarations, so a name the command has no option for (such as a plan file's
    ``margin`` key under ``analyze``) is never renamed."""
    flags = {}
    for name, hint in typing.get_type_hints(command, include_extras=True).items():
        for info in getattr(hint, "__metadata__", ()):
            if isinstance(info, typer.models.OptionInfo):
                # In Annotated[..., typer.Option("--format", "-f")] the first declaration is typer's `default`.
                first = [info.default] if isinstance(info.default, str) and info.default.startswith("-") else []
                decls = [d for d in (*first, *(info.param_decls or ())) if d.startswith("--")]
                flags[name] = decls[0] if decls else "--" + name.replace("_", "-")
    # the command's own spelling (``measure``) is no library argument: in a library message ``measure=AP``
    # names a row's column (``system=b, measure=AP``), never the option
    for library, option in _PARAMETER_OF_OPTION.items():
        if option in flags:
            flags[library] = flags.pop(option)
    return flags


def name_flags(message: str, flags: dict[str, str]) -> str:
    """``message`` with the Python parameter names of ``flags`` replaced by their flags.

    Rewritten: a quoted name (```family_by``` -> ``--family-by``), a keyword (``test='t'`` ->
    ``--test 't'``; ``baseline=/pairs=`` -> ``--baseline/--pairs``), a name with an underscore anywhere
    (``family_by column(s)``: no word of prose has one) and a plain name opening the message as its
    subject (``margin must be``; ``baseline(s) ['x']`` -> ``--baseline ['x']``).  A plain word
    elsewhere (``the baseline``) is prose and stays, and so is the parameter list of a measure name
    (``nDCG(judged_only=True)@10``, ``P(rel=2)@10``): a name's text is never rewritten."""
    kept: list[str] = []

    def keep(match: re.Match) -> str:
        if "=" not in match.group(0):                # baseline(s): a plural, not parameters
            return match.group(0)
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"
    message = _CALL_PARAMETERS.sub(keep, message)
    for name, flag in sorted(flags.items(), key=lambda item: -len(item[0])):
        n = re.escape(name)
        message = re.sub(rf"`{n}`", flag, message)
        message = re.sub(rf"(?<![\w-]){n}=(?=[\w'\"\[(-])", flag + " ", message)
        message = re.sub(rf"(?<![\w-]){n}=", flag, message)
        if "_" in name:
            message = re.sub(rf"(?<![\w-]){n}\b", flag, message)
        else:
            message = re.sub(rf"^{n}(?:\(s\))?(?= must | column| \[)", flag, message)
    return re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], message)


#: The parenthesised parameters right after a word (a measure name's ``(rel=2,judged_only=True)``), one
#: level of nested parentheses allowed (``Utility(weights=(2,-1,0,0))``).
_CALL_PARAMETERS = re.compile(r"(?<=\w)\((?:[^()]|\([^()]*\))*\)")


def check_depth(depth: int | None) -> None:
    """ValueError for a ``-M/--depth`` below 1, in the words of the command line: the library's message
    says ``or None``, which a CLI user cannot type (leaving the option out is what means no limit)."""
    if depth is not None and depth < 1:
        raise ValueError(f"-M/--depth must be a positive integer (the top N documents of each ranking; leave "
                         f"the option out to keep every document), got {depth}")


def format_of_suffix(output: Path | None, formats: dict[str, str], default: str) -> str:
    """The format an ``-o`` file's suffix asks for (``default`` without -o, or for ``.txt`` or no suffix);
    ValueError naming an unknown suffix, so that ``-o s.xlsx`` never writes a terminal table into it."""
    if output is None:
        return default
    known = {".txt": default, "": default, **formats}
    suffix = output.suffix.lower()
    if suffix not in known:
        raise ValueError(f"--output {output.name!r}: the suffix {output.suffix!r} names no format; use "
                         f"{', '.join(s for s in known if s)}, or give --format")
    return known[suffix]


def named_runs(runs: list[Path]) -> dict[str, Any]:
    """RUN arguments -> {system name: path, or the rows of one system}. ``PATH`` is named as
    :func:`pairedframe.evaluate` names run files (TREC's naming: the file name without ``.gz`` / ``.zst`` and a
    leading ``input.``; a table loses its extension too), except a table file with a ``system`` (or
    ``run_id``) column, which holds its own systems: each becomes one entry. ``NAME=PATH`` names it
    (two ``run.txt`` in different folders). An argument that is an existing file is a path even if it
    holds ``=``; a NAME holding ``=`` splits where the rest is an existing file (``k=1=run.txt``).
    ``-`` (or ``NAME=-``) is the run on standard input, named ``stdin`` (:mod:`pairedframe.cli.stdin_run`)."""
    named: dict[str, Any] = {}
    where: dict[str, str] = {}
    for i, arg in enumerate(map(str, runs), start=1):
        name, sep, path = _name_and_path(arg)
        if arg == STDIN_ARGUMENT or (sep and path == STDIN_ARGUMENT and not os.path.exists(arg)):
            arg = f"{name}={stdin_path(f'run argument {i}')}" if sep else stdin_path(f"run argument {i}")
            name, sep, path = _name_and_path(arg)
        given = not os.path.exists(arg) and bool(sep)
        if not given:
            name, path = run_name(arg) if os.path.exists(arg) else arg, arg
        elif not path:
            raise ValueError(f"run argument {arg!r}: expected PATH or NAME=PATH")
        elif not name.strip():  # as pf.evaluate refuses a blank key of {name: path}
            raise ValueError(f"run argument {arg!r}: a system name is empty or made of blanks only; give NAME=PATH a "
                             "name, or the PATH alone (named after its file)")
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        for name, source in (_systems_of_table(path) if not given else None) or [(name, path)]:
            if name in named:
                raise ValueError(f"runs {where[name]} and {path} are both named {name!r}; name them apart with "
                                 f"NAME=PATH, e.g. {name}_a={where[name]} {name}_b={path}")
            named[name], where[name] = source, path
    return named


def _name_and_path(arg: str) -> tuple[str, str, str]:
    """``arg.partition("=")``, unless a later ``=`` leaves an existing file on its right (a name holding
    ``=``, as the report's reproducing command writes it)."""
    for i, char in enumerate(arg):
        if char == "=" and i and os.path.exists(arg[i + 1:]):
            return arg[:i], "=", arg[i + 1:]
    return arg.partition("=")


def _systems_of_table(path: str) -> list[tuple[str, pl.DataFrame]] | None:
    """(system, its rows) of a run table file with a system column, in order of appearance; None for
    TREC text and for tables without one (they are named after the file)."""
    from pairedframe.io.convert import as_run
    from pairedframe.io.detect import detect_format, read_table_file
    from pairedframe.io.table_values import refuse_blank_ids_in_file
    from pairedframe.tables import names_system

    fmt = detect_format(path, what="run")
    if fmt == "trec":
        return None
    table = read_table_file(path, what="run", fmt=fmt)
    if not names_system(table.columns):
        return None
    refuse_blank_ids_in_file(table, path, fmt, "run")
    run = as_run(table)
    return [(s, run.filter(pl.col("system") == s)) for s in run["system"].unique(maintain_order=True).to_list()]


class _WarningPrinter:
    """``warnings.showwarning`` of one command: each distinct message once on stderr (evaluate, compare
    and the rendering may each meet the same problem), as ``pairedframe: warning: ...`` when pairedframe
    issued it and ``warning (from pyspark): ...`` when another package did (pairedframe did not say it)."""

    def __init__(self) -> None:
        self.printed: set[str] = set()

    def __call__(self, message: Warning | str, category: type[Warning], *_: Any, **__: Any) -> None:
        self.show(message, warning_source(message, category, skip=(__name__,)))

    def show(self, message: Warning | str, source: str) -> None:
        if str(message) not in self.printed:
            self.printed.add(str(message))
            prefix = "pairedframe: warning" if source == "pairedframe" else \
                f"warning (from {source})" if source else "warning"
            typer.echo(f"{prefix}: {message}", err=True)


@contextlib.contextmanager
def held_warnings() -> Iterator[None]:
    """Hold the block's warnings back (e.g. under a progress bar) and print each distinct one after it
    through the command's printer -- also when the block fails, so the warning that explains an error
    is not lost.  Each is recorded with the package that issued it (:func:`pairedframe.errors.warning_source`)."""
    caught: list[tuple[Any, ...]] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = lambda message, category, filename, lineno, *_, **__: caught.append(
                (message, category, filename, lineno, warning_source(message, category, skip=(__name__,))))
            yield
    finally:
        printer = warnings.showwarning
        for message, category, filename, lineno, source in caught:
            if isinstance(printer, _WarningPrinter):
                printer.show(message, source)
            else:                        # outside a command: whatever prints warnings there
                printer(message, category, filename, lineno)


def print_frame(frame: pl.DataFrame, fmt: str, *, title: str | None = None, float_digits: int = 4,
                file: typing.TextIO | None = None, format_by: str | None = None,
                integers: typing.Collection[str] = ()) -> None:
    """Render a frame as a box-drawn table (rich's; :func:`~pairedframe.cli.text_table.write_box_table`
    writes a long table's rows itself, the same text), CSV, JSON (list of records), markdown or LaTeX on
    ``file`` (default: stdout). A ``title`` is the box's title, markdown's ``Table:`` caption line and a
    ``%`` comment above LaTeX's ``tabular``; CSV and JSON hold the data alone. ``format_by``: the column whose
    value picks each row's number format (a long table's ``measure``), with the rows whose ``format_by`` is in
    ``integers`` (counts) as integers."""
    out = sys.stdout if file is None else file
    if fmt == "csv":
        out.write(frame.write_csv())
    elif fmt == "json":
        out.write(json_text(frame.to_dicts()))
    elif fmt == "markdown":  # the title as pandoc's caption line: it says what the numbers are
        out.write(to_markdown(frame, float_digits, format_by, integers) + "\n"
                  + (f"\nTable: {markdown_escape(title)}\n" if title else ""))
    elif fmt == "latex":
        # the title as a comment: the tabular goes into the writer's own table float, under their caption
        out.write((f"% {' '.join(title.splitlines())}\n" if title else "") + to_latex(frame, float_digits, format_by, integers) + "\n")
    elif fmt == "table":
        write_box_table(frame, file, title=title, digits=float_digits, format_by=format_by, integers=integers)
    else:
        fail(f"unknown format {fmt!r}")


def _cells(frame: pl.DataFrame, digits: int, format_by: str | None = None,
           integers: typing.Collection[str] = ()) -> list[tuple[str, ...]]:
    """The frame's rows as text, as the table shows them (:func:`~pairedframe.cli.text_table.column_texts`)."""
    return list(zip(*column_texts(frame, digits, format_by, integers)))


def to_markdown(frame: pl.DataFrame, digits: int = 4, format_by: str | None = None,
                integers: typing.Collection[str] = ()) -> str:
    """A GFM pipe table; names escaped to render as themselves (:func:`~pairedframe.report.table_markdown.markdown_escape`)."""
    head = "| " + " | ".join(map(markdown_escape, frame.columns)) + " |"
    rule = "| " + " | ".join("---:" if t.is_numeric() else "---" for t in frame.dtypes) + " |"
    rows = ["| " + " | ".join(map(markdown_escape, row)) + " |"
            for row in _cells(frame, digits, format_by, integers)]
    return "\n".join([head, rule, *rows])


def to_latex(frame: pl.DataFrame, digits: int = 4, format_by: str | None = None,
             integers: typing.Collection[str] = ()) -> str:
    """A booktabs ``tabular``; names escaped for pdflatex (:func:`~pairedframe.report.table_latex.latex_escape`)."""
    cols = "".join("r" if t.is_numeric() else "l" for t in frame.dtypes)
    lines = [rf"\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(map(latex_escape, frame.columns)) + r" \\",
             r"\midrule"]
    # numbers' signs as math minus, as $-\infty$ has
    escapes = [latex_number if t.is_numeric() else latex_escape for t in frame.dtypes]
    lines += [latex_row([esc(v) for esc, v in zip(escapes, row)]) for row in _cells(frame, digits, format_by, integers)]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)
