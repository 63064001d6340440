"""The `tpucc` command: build, inspect and run ahead-of-time artifacts.

    tpucc build MODEL.py [--entry NAME ...] [--out DIR] [--target cpu|cuda|tpu-v5e:2x2 ...]
                         [--emit ir|stablehlo|hlo|optimized-hlo ...] [--quiet]
    tpucc inspect ARTIFACT
    tpucc run ARTIFACT --input in.npz --output out.npz

Every error a user can cause prints one tpucc message on stderr and exits 1
(click's own usage errors exit 2); `build` goes on to the next entry after
one fails, printing one message per failed entry.
"""
from __future__ import annotations

import functools
import os
import sys
import time

import click

from .errors import TpuccError


def _errors(fn):
    """One message and exit status 1 for every error a user can cause: tpucc's
    own, and the file system's (an unwritable --out, a full disk).
    TPUCC_DEBUG=1 lets the traceback through."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TpuccError, OSError) as e:
            if os.environ.get("TPUCC_DEBUG"):
                raise
            text = str(e) if isinstance(e, TpuccError) else _os_error(e)
            click.echo(f"tpucc: error: {text}", err=True)
            sys.exit(1)
    return wrapper


def _os_error(e: OSError) -> str:
    where = f": {e.filename}" if e.filename else ""
    return f"{e.strerror or type(e).__name__}{where}"


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
              metavar="TARGET",
              help="cpu, cuda, rocm, tpu (this machine's TPU) or tpu-GEN:TOPOLOGY (a TPU "
                   "slice compiled here through libtpu, e.g. tpu-v5e:2x2); repeatable. "
                   "Each adds its platform to the portable module and, where it can be "
                   "compiled here, an executable.")
@click.option("--emit", multiple=True,
              type=click.Choice(["ir", "stablehlo", "hlo", "optimized-hlo"]),
              help="Also write readable texts into the artifact (repeatable).")
@click.option("--progress/--no-progress", default=None,
              help="Show each stage and its time on stderr (default: when stderr is a "
                   "terminal).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@_errors
def build(model, entries, out_dir, targets, emit, progress, quiet):
    """Compile the @entry functions of MODEL into artifact directories.

    Every chosen entry is built, even after one fails: each success prints
    its "built" line, each failure its own error, and the exit status is 1
    if any failed."""
    from .aot import build_file
    from .aot.build import Progress
    t0 = time.perf_counter()
    if progress is None:
        progress = sys.stderr.isatty()
    shown = Progress(progress and not quiet)
    started_in = os.getcwd()            # (the model may change it as it imports)
    failed = []

    def report_built(b):
        if quiet:
            return
        exes = ", ".join(b.executables) or "none"
        path = b.path if os.path.isabs(out_dir) else os.path.relpath(b.path, started_in)
        click.echo(f"built {path} ({_size(b.path) / 1024:.1f} KiB; executables: {exes})")
        for note in b.notes:
            click.echo(f"  note: {note}")

    def report_failed(name, error):
        if os.environ.get("TPUCC_DEBUG"):
            raise error
        failed.append(name)
        click.echo(f"tpucc: error: {error}", err=True)

    built = build_file(model, out_dir, entries, tuple(targets), tuple(emit), shown,
                       on_built=report_built, on_failed=report_failed)
    if failed:
        if len(failed) + len(built) > 1:
            click.echo(f"tpucc: {len(failed)} of {len(failed) + len(built)} entries failed "
                       f"({', '.join(failed)}); built {len(built)}", err=True)
        sys.exit(1)
    if not quiet:
        shown.say(f"total {time.perf_counter() - t0:.2f} s")


def _size(path) -> int:
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


@main.command()
@click.argument("artifact", type=click.Path())
@click.option("--verify", is_flag=True,
              help="Also check every file's sha256 (loading checks sizes, and the "
                   "sha256 of all but the weights).")
@_errors
def inspect(artifact, verify):
    """Print an artifact's manifest readably."""
    from .aot.inspect import describe
    click.echo(describe(artifact, verify))


@main.command()
@click.argument("artifact", type=click.Path())
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False),
              help="An .npz with one array per array argument, named by its path "
                   "(`tpucc inspect` lists them, e.g. x or params['w1']) or by flat "
                   "position (arg0, arg1, ...).")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False),
              callback=lambda ctx, param, value: _npz_name(value),
              help="An .npz receiving each result leaf under its path (out, out[0], "
                   "out['loss'], ...).")
@click.option("--quiet", "-q", is_flag=True)
@_errors
def run(artifact, input_path, output_path, quiet):
    """Run ARTIFACT on the arrays of an .npz file."""
    import warnings
    from .aot.inspect import run_npz
    from .aot.load import FallbackWarning
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FallbackWarning)
        names = run_npz(artifact, input_path, output_path)
    for w in caught:
        if not quiet and issubclass(w.category, FallbackWarning):
            click.echo(f"tpucc: warning: {str(w.message).removeprefix('tpucc: ')}", err=True)
    if not output_path.endswith(".npz"):
        output_path += ".npz"           # (np.savez adds it)
    if not quiet:
        click.echo(f"wrote {output_path}: {', '.join(names)} "
                   f"({time.perf_counter() - t0:.2f} s)")


def _npz_name(path: str) -> str:
    """--output names a file: np.savez would write "" or "out/" as a hidden
    ".npz" (it appends the suffix to whatever it is given)."""
    if not os.path.basename(path):
        raise click.BadParameter(f"{path!r} names no file; name the .npz to write, "
                                 "e.g. --output out.npz")
    return path


if __name__ == "__main__":
    main()
