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


class TrecEvalCommand(TyperCommand):
    """A typer command that reads trec_eval's long option names (``--nosummary`` as ``-n``,
    ``--level_for_rel=2`` as ``-l 2``) and refuses the trec_eval flags it does not take, naming the
    flag and what to use instead, with exit code 2 like the command's other errors."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # typer may carry its own copy of click: options are told by their kind, not their class
        takes_value = {opt for p in self.params if p.param_type_name == "option" and not getattr(p, "is_flag", False)
                       for opt in p.opts}
        out: list[str] = []
        tokens = iter(args)
        for token in tokens:
            if token == "--":                       # the rest are arguments
                out += [token, *tokens]
                break
            name, eq, value = token.partition("=")
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
