"""``.. pf-cli::`` renders the reference of every ``pairedframe`` subcommand from the typer app itself:
its description, usage, arguments and options with their help and defaults (nothing typed by hand)."""

from __future__ import annotations

import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective


def _text(help_text: str | None) -> str:
    """A typer help text as plain RST: rich-markup escapes removed, RST specials escaped."""
    text = (help_text or "").replace("\\[", "[")
    text = re.sub(r"\[/?(bold|italic|dim|red|green|blue|yellow)\]", "", text)
    return (text.replace("*", "\\*").replace("`", "\\`").replace("|", "\\|").replace("_", "\\_")
            .replace("@", "\\@"))


def _type_name(p, ctx) -> str:
    """The value's type as the help shows it (typer >= 0.20 ``display_type``; click's ``type.name``)."""
    if callable(getattr(p, "display_type", None)):
        return str(p.display_type(ctx)).strip("<>")
    return str(getattr(getattr(p, "type", None), "name", "") or "")


def _param_rows(command, ctx) -> list[tuple[str, str, str]]:
    rows = []
    for p in command.params:
        if p.name == "help":
            continue
        if p.param_type_name == "argument":
            name = (p.metavar or p.name).upper() + (" ..." if p.nargs == -1 else "")
            kind = "argument" + ("" if p.required else ", optional")
        else:
            name = ", ".join([*p.opts, *p.secondary_opts])
            flag = bool(getattr(p, "is_flag", False))
            kind = "flag" if flag else _type_name(p, ctx)
            if p.multiple:
                kind += ", repeatable"
            if not flag and not callable(p.default) and p.default not in (None, (), []):
                kind += f"; default {p.default}"
        rows.append((name, kind, _text(getattr(p, "help", "") or "")))
    return rows


def cli_rst() -> list[str]:
    """RST lines: one section per subcommand, in name order."""
    import typer

    from pairedframe.cli import app

    group = typer.main.get_command(app)
    ctx = group.make_context("pairedframe", [], resilient_parsing=True)
    lines: list[str] = []
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        sub = command.make_context(name, [], parent=ctx, resilient_parsing=True)
        pieces = [piece.replace("{", "").replace("}", "").upper() if piece.startswith("{") else piece
                  for piece in command.collect_usage_pieces(sub)]
        usage = " ".join(["pairedframe", name, *pieces])
        doc = (command.help or "").strip()
        title = f"pairedframe {name}"
        lines += [title, "-" * len(title), "", ".. code-block:: text", "", f"   {usage}", ""]
        for para in re.split(r"\n\s*\n", doc):
            lines += [_text(" ".join(para.split())), ""]
        rows = _param_rows(command, sub)
        if not rows:
            lines += ["No arguments or options.", ""]
            continue
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 25 20 55", "",
                  "   * - argument / option", "     - kind", "     - meaning"]
        for opt, kind, help_text in rows:
            lines += [f"   * - ``{opt}``", f"     - {_text(kind)}", f"     - {help_text}"]
        lines.append("")
    return lines


class CliReference(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(StringList(cli_rst(), source="pairedframe CLI"), self.content_offset, container,
                                match_titles=True)
        return container.children


def setup(app):
    app.add_directive("pf-cli", CliReference)
    return {"parallel_read_safe": True, "version": "1"}
