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
    return text.replace("*", "\\*").replace("`", "\\`").replace("|", "\\|").replace("_", "\\_")


def _param_rows(command) -> list[tuple[str, str, str]]:
    import click

    rows = []
    for p in command.params:
        if p.name == "help":
            continue
        if isinstance(p, click.Argument):
            name = p.human_readable_name.upper() + (" ..." if p.nargs == -1 else "")
            kind = "argument" + ("" if p.required else ", optional")
        else:
            name = ", ".join(p.opts + p.secondary_opts)
            kind = "flag" if p.is_flag else p.type.name.upper()
            if p.multiple:
                kind += ", repeatable"
            default = p.default
            if callable(default) or default in (None, (), [], False) or p.is_flag and not default:
                pass
            else:
                kind += f"; default {default}"
        rows.append((name, kind, _text(getattr(p, "help", "") or "")))
    return rows


def cli_rst() -> list[str]:
    """RST lines: one section per subcommand, in name order."""
    import click
    import typer

    from pairedframe.cli import app

    group = typer.main.get_command(app)
    lines: list[str] = []
    ctx = click.Context(group, info_name="pairedframe")
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        sub = click.Context(command, info_name=name, parent=ctx)
        usage = " ".join(["pairedframe", name, *command.collect_usage_pieces(sub)])
        doc = (command.help or "").strip()
        title = f"pairedframe {name}"
        lines += [title, "-" * len(title), "", f".. code-block:: text", "", f"   {usage}", ""]
        for para in re.split(r"\n\s*\n", doc):
            lines += [_text(" ".join(para.split())), ""]
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 25 20 55", "",
                  "   * - argument / option", "     - kind", "     - meaning"]
        for opt, kind, help_text in _param_rows(command):
            lines += [f"   * - ``{opt}``", f"     - {kind}", f"     - {help_text}"]
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
