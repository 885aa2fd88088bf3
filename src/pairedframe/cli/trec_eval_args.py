"""trec_eval's command line on ``pairedframe evaluate``: its long option names read as the short ones, and
its flags that evaluate does not take refused by name with what to use instead (not click's bare
"No such option"). trec_eval 10's options are in its trec_eval.c (``getopt_long``)."""

from __future__ import annotations

import itertools
from typing import Any

from typer.core import TyperCommand

from pairedframe.cli.common import fail

#: trec_eval's long options -> evaluate's short ones (``--measure`` is evaluate's own already).
LONG_OPTIONS = {"--query_eval_wanted": "-q", "--complete_rel_info_wanted": "-c", "--level_for_rel": "-l",
                "--nosummary": "-n", "--Judged_docs_only": "-J", "--Number_docs_in_coll": "-N",
                "--Max_retrieved_per_topic": "-M", "--Rel_info_format": "-R", "--Results_format": "-T",
                "--Zscore": "-Z"}

#: trec_eval flags (10's, and -a of trec_eval 8) that evaluate refuses: why, and what to use instead.
REFUSED = {
    "-a": "-a is trec_eval 8's 'all measures' flag, not trec_eval 10's; use -m all_trec (every trec_eval 10 "
          "measure), as trec_eval 10 does",
    "-D": "-D (trec_eval's debug level) is not supported: evaluate prints no debug trace; use -q for per-query "
          "values",
    "--Debug_level": "--Debug_level (trec_eval -D) is not supported: evaluate prints no debug trace; use -q for "
                     "per-query values",
    "-o": "-o is trec_eval's obsolete old-output-format flag, which trec_eval 10 ignores; evaluate has no -o: "
          "drop it (redirect stdout to write a file)",
    "--Output_old_results_format": "--Output_old_results_format (trec_eval -o) is obsolete and ignored by trec_eval "
                                   "10; drop it",
    "-v": "-v (trec_eval's version) is not an evaluate option: evaluate follows trec_eval 10.0; "
          "`pip show pairedframe` gives pairedframe's version",
    "--version": "--version is not an evaluate option: evaluate follows trec_eval 10.0; `pip show pairedframe` "
                 "gives pairedframe's version",
}


def refused_flag(token: str) -> str | None:
    """The refusal message of a command-line token that is a trec_eval flag evaluate does not take
    (``-a``; ``-D2`` and ``--Debug_level=2`` glued to their value), else None."""
    if token in REFUSED:
        return REFUSED[token]
    if token.startswith("-D") and not token.startswith("--"):
        return REFUSED["-D"]
    name = token.split("=", 1)[0]
    return REFUSED.get(name) if token.startswith("--") else None


def unbundled(token: str, flags: set[str], takes_value: set[str]) -> tuple[list[str], bool]:
    """A bundle of short options as getopt reads it (``-qc`` as ``-q -c``; ``-qM5`` as ``-q -M 5``: an
    option that takes a value takes the rest of the token, or the next token), so that a refused flag in
    it (``-qa``) is refused by name: the tokens, and whether the last option takes the next token. Any
    other token as it is."""
    if token.startswith("--") or len(token) <= 2 or not token.startswith("-") or token in flags | takes_value:
        return [token], False
    out = []
    for i, letter in enumerate(token[1:], start=1):
        option = "-" + letter
        why = refused_flag(option)
        if why is not None:
            fail(f"{why} (in {token})")
        if option in takes_value:
            rest = token[i + 1:]
            return out + [option] + ([rest] if rest else []), not rest
        if option not in flags:
            return [token], False                   # not a bundle of evaluate's flags: click decides
        out.append(option)
    return out, False


def long_name(name: str, names: dict[str, str]) -> str:
    """An unambiguous prefix of a long option as getopt_long reads it (``--nosum`` as ``--nosummary``;
    ``names`` maps each long option to the option it sets: a prefix of several names of one option is
    not ambiguous); any other name as it is."""
    if not name.startswith("--") or name in names:
        return name
    matches = sorted(n for n in names if n.startswith(name))
    if len({names[n] for n in matches}) > 1:
        fail(f"{name} is ambiguous: it begins {', '.join(matches)}")
    return matches[0] if matches else name


class TrecEvalCommand(TyperCommand):
    """A typer command that reads trec_eval's long option names (``--nosummary`` as ``-n``,
    ``--level_for_rel=2`` as ``-l 2``, unambiguous prefixes as getopt_long does) and bundles of short flags
    (``-qc``), and refuses the trec_eval flags it does not take, naming the flag and what to use instead,
    with exit code 2 like the command's other errors."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # typer may carry its own copy of click: options are told by their kind, not their class
        options = [p for p in self.params if p.param_type_name == "option"]
        takes_value = {opt for p in options if not getattr(p, "is_flag", False) for opt in p.opts}
        flags = {opt for p in options if getattr(p, "is_flag", False) for opt in (*p.opts, *p.secondary_opts)}
        # each long name -> the option it sets (trec_eval's names set evaluate's short ones)
        sets = {opt: p.name for p in options for opt in (*p.opts, *getattr(p, "secondary_opts", ()))}
        long_names = {o: sets.get(LONG_OPTIONS.get(o, o), o) for o in (*sets, *LONG_OPTIONS, *REFUSED)
                      if o.startswith("--")}
        out: list[str] = []
        tokens = iter(args)
        for token in tokens:
            if token == "--":                       # the rest are arguments
                out += [token, *tokens]
                break
            name, eq, value = token.partition("=")
            if token.startswith("--"):
                name = long_name(name, long_names)
                token = name + eq + value
            else:
                expanded, needs_value = unbundled(token, flags, takes_value)
                if expanded != [token]:
                    out += expanded + (list(itertools.islice(tokens, 1)) if needs_value else [])
                    continue
            if token.startswith("--") and name in LONG_OPTIONS:
                token = LONG_OPTIONS[name]
                out += [token, value] if eq else [token]
                if eq:
                    continue
            else:
                why = refused_flag(token)
                if why is not None:
                    fail(why)
                out.append(token)
            if token in takes_value:                # its value is never read as a flag (-m -a is a measure)
                out += list(itertools.islice(tokens, 1))
        return super().parse_args(ctx, out)
