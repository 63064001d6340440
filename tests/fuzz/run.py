"""Differential fuzzing of tpucc: generate programs (generator.py), run each
eagerly with NumPy and compiled with tpucc, compare results and the final
contents of the arguments, shrink every failure to a minimal reproducer.

    python -m tests.fuzz.run --count N [--seed S] [--time-limit SEC] [--no-shrink]
    python -m tests.fuzz.run --seeds 228,307      # re-run given seeds

Each program runs in a child process (IsolatedChecker; --no-isolate: in this
one), so that an abort inside XLA is reported as a failure of its seed.
Programs whose EAGER run raises or emits a NumPy warning (overflow, invalid)
are skipped: those are generator bugs, not compiler bugs.  Programs of the
"merge" category must be refused with tpucc.MergeError."""
from __future__ import annotations

import argparse
import copy
import multiprocessing
import os
import re
import signal
import sys
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TPUCC_VERIFY", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np                                   # noqa: E402

import tpucc                                          # noqa: E402
from conftest import assert_same                      # noqa: E402  (tests/conftest.py)
from tests.fuzz.generator import Program, Stmt, generate   # noqa: E402

PER_PROGRAM_TIMEOUT = 60        # seconds, eager + compile + run

# Deliberate, documented refusals of programs NumPy runs (README "What does not
# compile"): counted as "refused", shown in the summary, not as bugs.  E500:
# an in-place update whose target array depends on a runtime condition.
# --strict counts them as failures.
KNOWN_REFUSALS = {"SideEffectError"}
STRICT = False


@dataclass
class Outcome:
    category: str               # skip / pass / mismatch / error:<Class> / crash:<Exc> / merge-missed / timeout
    detail: str = ""

    @property
    def is_bug(self) -> bool:
        return self.category not in ("skip", "pass", "refused")


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def tolerances(prog: Program):
    return (1e-5, 1e-5) if prog.uses_float32 else (1e-9, 1e-9)


def run_eager(fn, args):
    """Eager NumPy run on copies; raises if NumPy raises or warns."""
    eargs = copy.deepcopy(args)
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        out = fn(*eargs)
    return out, eargs


def check_program(prog: Program) -> Outcome:
    try:
        fn = prog.build()
    except SyntaxError as e:
        return Outcome("skip", f"syntax: {e}")
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(PER_PROGRAM_TIMEOUT)
    try:
        return _check(prog, fn)
    except _Timeout:
        return Outcome("timeout", f"more than {PER_PROGRAM_TIMEOUT} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _check(prog: Program, fn) -> Outcome:
    try:
        expected, eargs = run_eager(fn, prog.args)
    except _Timeout:
        raise
    except BaseException as e:                  # noqa: BLE001  generator bug, not ours
        return Outcome("skip", f"eager: {type(e).__name__}: {e}")
    cargs = copy.deepcopy(prog.args)
    try:
        actual = tpucc.compile(fn)(*cargs)
    except _Timeout:
        raise
    except tpucc.TpuccError as e:
        name = type(e).__name__
        if not prog.expect_compile and name == prog.expect_error:
            return Outcome("pass", "refused as expected")
        if name in KNOWN_REFUSALS and not STRICT:
            return Outcome("refused", str(e))
        return Outcome(f"error:{name}", str(e))
    except Exception as e:                      # noqa: BLE001
        tb = traceback.format_exc(limit=-3)
        return Outcome(f"crash:{type(e).__name__}", f"{e}\n{tb}")
    if not prog.expect_compile:
        return Outcome("merge-missed", f"expected {prog.expect_error}, but it compiled")
    rtol, atol = tolerances(prog)
    try:
        assert_same(expected, actual, rtol, atol)
        assert_same(eargs, cargs, rtol, atol)
    except AssertionError as e:
        return Outcome("mismatch", f"{e}\nexpected: {expected!r}\nactual:   {actual!r}")
    return Outcome("pass")


class IsolatedChecker:
    """check_program in a child process: an abort inside XLA (a C++ check
    failure kills the process) is then one failed program, reported with
    its seed, and not the end of the run.  The child is restarted after it."""

    def __init__(self):
        self.proc = self.conn = None
        self._start()

    def _start(self):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()

    def _restart(self):
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()
        self._start()

    def __call__(self, prog: Program) -> Outcome:
        try:
            self.conn.send(prog)
            if self.conn.poll(PER_PROGRAM_TIMEOUT + 60):
                return self.conn.recv()
            self._restart()
            return Outcome("timeout", "the worker process did not answer")
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            self.proc.join(10)
            code = self.proc.exitcode
            self._restart()
            return Outcome("crash:process", f"the process running it died (exit code {code}; "
                                            "a negative code is the signal, e.g. -6: an XLA "
                                            "check failure, printed on stderr)")

    def close(self):
        self.conn.close()
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()


def _worker_main(conn):
    while True:
        try:
            prog = conn.recv()
        except EOFError:
            return
        conn.send(check_program(prog))


# ---------------------------------------------------------------------------
# Shrinking: delta debugging over the statement tree
# ---------------------------------------------------------------------------

def _slots(prog: Program):
    """(block, index) for every statement, preorder, helpers first."""
    out = []
    work = [fn.body for fn in reversed(prog.helpers + [prog.main])]
    while work:
        block = work.pop()
        for i, s in enumerate(block):
            out.append((block, i))
        for s in reversed(block):
            if s.orelse:
                work.append(s.orelse)
            if s.body is not None:
                work.append(s.body)
    return out


def _candidates(prog: Program):
    """Smaller variants of `prog`, biggest cuts first."""
    for h in range(len(prog.helpers)):
        c = prog.copy()
        del c.helpers[h]
        yield c
    ret = prog.main.ret.strip("()").rstrip(",").split(", ")
    if len(ret) > 1 and all(r.isidentifier() for r in ret):
        for j in range(len(ret)):
            c = prog.copy()
            c.main.ret = "(" + ", ".join(ret[:j] + ret[j + 1:]) + ",)"
            yield c
    n = len(_slots(prog))
    for k in range(n):
        for edit in ("delete", "body", "orelse", "drop_else"):
            c = prog.copy()
            block, i = _slots(c)[k]
            s = block[i]
            if edit == "delete" and not s.pinned:
                del block[i]
            elif edit == "body" and s.body is not None and s.head is not None:
                block[i:i + 1] = s.body
            elif edit == "orelse" and s.orelse:
                block[i:i + 1] = s.orelse
            elif edit == "drop_else" and s.orelse:
                s.orelse = None
            else:
                continue
            yield c


def _size(prog: Program) -> int:
    return len(prog.source())


def shrink(prog: Program, outcome: Outcome, budget_s: float = 120.0, check=None):
    """Greedy delta debugging: keep any smaller variant that fails the same way."""
    check = check or check_program
    deadline = time.time() + budget_s
    best, best_out = prog, outcome
    improved = True
    while improved and time.time() < deadline:
        improved = False
        for cand in _candidates(best):
            if time.time() > deadline:
                break
            if _size(cand) >= _size(best):
                continue
            out = check(cand)
            if out.category == outcome.category:
                best, best_out, improved = cand, out, True
                break
    return best, best_out


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def _signature(out: Outcome) -> str:
    """Groups failures: category + first line of the message without numbers/names."""
    lines = [l.strip() for l in out.detail.splitlines() if l.strip()]
    first = " | ".join(lines[:2] if out.category == "mismatch" else lines[:1])
    first = re.sub(r"\b[vxkijmL]\d+\b", "_", first)
    first = re.sub(r"\d+", "N", first)
    return f"{out.category}: {first[:120]}"


def format_bug(prog: Program, out: Outcome) -> str:
    return (f"--- seed {prog.seed} [{prog.category}] {out.category}\n"
            f"{prog.source()}\n"
            f"# arguments: {', '.join(repr(a) for a in prog.args)}\n"
            f"# {out.category}:\n" + "\n".join("#   " + l for l in out.detail.splitlines()[:25]))


def fuzz(count: int, seed: int = 0, time_limit: float | None = None, shrink_bugs: bool = True,
         verbose: bool = False, out=sys.stdout, seeds=None, isolate: bool = False):
    """Runs programs of seeds seed..seed+count-1 (or the given `seeds`);
    returns (stats Counter, {signature: (shrunk program, outcome, seeds)}).
    `isolate`: run each program in a child process (IsolatedChecker)."""
    checker = IsolatedChecker() if isolate else None
    try:
        return _fuzz(count, seed, time_limit, shrink_bugs, verbose, out, seeds,
                     checker or check_program)
    finally:
        if checker is not None:
            checker.close()


def _fuzz(count, seed, time_limit, shrink_bugs, verbose, out, seeds, check):
    t0 = time.time()
    seeds = list(seeds) if seeds is not None else list(range(seed, seed + count))
    stats = Counter()
    categories = Counter()
    refusals = Counter()
    bugs: dict[str, tuple] = {}
    for s in seeds:
        if time_limit is not None and time.time() - t0 > time_limit:
            break
        try:
            prog = generate(s)
        except Exception as e:                  # noqa: BLE001  a generator bug
            stats["run"] += 1
            stats["skipped"] += 1
            print(f"seed {s}: generator error {type(e).__name__}: {e}", file=out)
            continue
        o = check(prog)
        stats["run"] += 1
        if o.category == "skip":
            stats["skipped"] += 1
            if verbose:
                print(f"seed {s}: skip ({o.detail.splitlines()[0][:100]})", file=out)
            continue
        stats[prog.category] += 1
        if o.category == "refused":
            stats["refused"] += 1
            refusals[_signature(o)] += 1
            continue
        if not o.is_bug:
            stats["passed"] += 1
            continue
        stats["failed"] += 1
        categories[o.category] += 1
        if o.category == "mismatch":
            stats["mismatches"] += 1
        sig = _signature(o)
        print(f"seed {s}: {o.category}: {o.detail.splitlines()[0][:160] if o.detail else ''}",
              file=out, flush=True)
        if sig in bugs:
            bugs[sig][2].append(s)
            continue
        small, so = shrink(prog, o, check=check) if shrink_bugs else (prog, o)
        bugs[sig] = (small, so, [s])
        print(format_bug(small, so), file=out, flush=True)
    elapsed = time.time() - t0
    counted = stats["run"] - stats["skipped"]
    print("\n=== tpucc fuzz summary ===", file=out)
    print(f"programs run: {stats['run']} (seeds {seeds[0]}..{seeds[max(stats['run'], 1) - 1]}), "
          f"skipped (eager raised/warned): {stats['skipped']}, counted: {counted} "
          f"(valid {stats['valid']}, merge {stats['merge']})", file=out)
    print(f"passed: {stats['passed']}, mismatches: {stats['mismatches']}, "
          f"failures: {stats['failed']}, refused by design ({', '.join(sorted(KNOWN_REFUSALS))}): "
          f"{stats['refused']}", file=out)
    for sig, n in refusals.most_common():
        print(f"  refused {n}x: {sig[:160]}", file=out)
    for cat, n in categories.most_common():
        print(f"  {cat}: {n}", file=out)
    print(f"distinct bugs: {len(bugs)}", file=out)
    for sig, (_, _, where) in bugs.items():
        print(f"  {sig}  (seeds {where[:8]}{' ...' if len(where) > 8 else ''})", file=out)
    print(f"elapsed: {elapsed:.1f} s", file=out, flush=True)
    return stats, bugs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", "--start", type=int, default=0, help="first seed")
    ap.add_argument("--seeds", type=str, default=None,
                    help="comma-separated seeds to run instead of a range (re-checking failures)")
    ap.add_argument("--time-limit", type=float, default=None, help="stop starting programs after SEC")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--show", type=int, default=None, help="print the program of one seed and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--strict", action="store_true", help="count KNOWN_REFUSALS as failures")
    ap.add_argument("--no-isolate", action="store_true",
                    help="run programs in this process (faster start; an XLA abort ends the run)")
    a = ap.parse_args(argv)
    global STRICT
    STRICT = a.strict
    if a.show is not None:
        p = generate(a.show)
        print(p.source(), f"# args: {p.args!r}\n# category: {p.category}", sep="\n")
        print(check_program(p))
        return 0
    seeds = [int(s) for s in a.seeds.split(",") if s.strip()] if a.seeds else None
    stats, bugs = fuzz(a.count, a.seed, a.time_limit, not a.no_shrink, a.verbose, seeds=seeds,
                       isolate=not a.no_isolate)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
