"""The `tpucc` command: build, inspect and run ahead-of-time artifacts.

    tpucc build MODEL.py [--entry NAME ...] [--out DIR] [--target cpu]
                         [--emit ir|stablehlo|hlo|optimized-hlo ...] [--quiet]
    tpucc inspect ARTIFACT
    tpucc run ARTIFACT --input in.npz --output out.npz

Every error a user can cause prints one tpucc message on stderr and exits 1
(click's own usage errors exit 2).
"""
from __future__ import annotations

import functools
import os
import sys
import time

import click

from .errors import TpuccError


def _errors(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TpuccError as e:
            click.echo(f"tpucc: error: {e}", err=True)
            sys.exit(1)
    return wrapper


@click.group()
def main():
    """tpucc: a whole-program ahead-of-time compiler for Python + NumPy."""


@main.command()
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--entry", "entries", multiple=True, metavar="NAME",
              help="Build only this entry (repeatable); default: every entry.")
@click.option("--out", "out_dir", default=".", show_default=True, type=click.Path(),
              help="Directory that receives NAME.tpucc/.")
@click.option("--target", "targets", multiple=True, default=("cpu",), show_default=True,
              type=click.Choice(["cpu", "cuda", "rocm", "tpu"]),
              help="Platforms of the StableHLO module (repeatable); the executable is "
                   "compiled for the local backend when it is a target.")
@click.option("--emit", multiple=True,
              type=click.Choice(["ir", "stablehlo", "hlo", "optimized-hlo"]),
              help="Also write readable texts into the artifact (repeatable).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@_errors
def build(model, entries, out_dir, targets, emit, quiet):
    """Compile the @entry functions of MODEL into artifact directories."""
    from .aot import build_file
    t0 = time.perf_counter()
    progress = not quiet and sys.stderr.isatty()
    paths = build_file(model, out_dir, entries, tuple(targets), tuple(emit), progress)
    if not quiet:
        for p in paths:
            click.echo(f"built {p} ({_size(p) / 1024:.1f} KiB)")
        if progress:
            click.echo(f"total {time.perf_counter() - t0:.2f} s", err=True)


def _size(path) -> int:
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


@main.command()
@click.argument("artifact", type=click.Path())
@_errors
def inspect(artifact):
    """Print an artifact's manifest readably."""
    from .aot.inspect import describe
    click.echo(describe(artifact))


@main.command()
@click.argument("artifact", type=click.Path())
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False),
              help="An .npz with one array per array argument, named by its path "
                   "(`tpucc inspect` lists them, e.g. x or params['w1']) or by flat "
                   "position (arg0, arg1, ...).")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False),
              help="An .npz receiving each result leaf under its path (out, out[0], "
                   "out['loss'], ...).")
@click.option("--quiet", "-q", is_flag=True)
@_errors
def run(artifact, input_path, output_path, quiet):
    """Run ARTIFACT on the arrays of an .npz file."""
    from .aot.inspect import run_npz
    t0 = time.perf_counter()
    names = run_npz(artifact, input_path, output_path)
    if not quiet:
        click.echo(f"wrote {output_path}: {', '.join(names)} "
                   f"({time.perf_counter() - t0:.2f} s)")


if __name__ == "__main__":
    main()
