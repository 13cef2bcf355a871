"""Where ``logkb scan`` writes its reports: one or several ``--format`` / ``--output`` pairs.

``--format sarif --output a.sarif --format text`` writes SARIF to a.sarif and the text report
to stdout: an ``--output`` belongs to the ``--format`` before it (or to the first one, when it
comes before every ``--format``); a format without an ``--output`` goes to stdout, which only
one report can have. With one format, ``-o FILE`` pairs with it wherever it stands.
"""

from __future__ import annotations

import click
import msgspec

ORDER = "logkb.option_order"


class OrderedCommand(click.Command):
    """A command that records in which order its options appeared (``ctx.meta[ORDER]``, one
    parameter name per occurrence); click itself only keeps each option's values in order."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        _, _, order = self.make_parser(ctx).parse_args(args=list(args))
        ctx.meta[ORDER] = [param.name for param in order]
        return super().parse_args(ctx, args)


class Target(msgspec.Struct, frozen=True):
    fmt: str
    path: str | None  # None: stdout


def targets(formats: tuple[str, ...], outputs: tuple[str, ...], order: list[str]) -> list[Target]:
    """Pair formats with output files as the module docstring says; a UsageError otherwise."""
    if len(formats) <= 1:
        if len(outputs) > 1:
            raise click.UsageError("one --output per --format")
        return [Target(formats[0] if formats else "text", outputs[0] if outputs else None)]
    paths: list[str | None] = [None] * len(formats)
    seen_formats, next_output = 0, 0
    for name in order:
        if name == "fmt":
            seen_formats += 1
        elif name == "output":
            slot = max(seen_formats - 1, 0)
            if paths[slot] is not None:
                raise click.UsageError(f"two --output for --format {formats[slot]}")
            paths[slot] = outputs[next_output]
            next_output += 1
    if sum(path is None for path in paths) > 1:
        raise click.UsageError("only one report can go to stdout: give the other --format an --output")
    return [Target(fmt, path) for fmt, path in zip(formats, paths)]
