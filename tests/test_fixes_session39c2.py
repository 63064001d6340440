"""Session 39c2's fixes, each checked against eager NumPy."""
import numpy as np
import pytest

import tpucc
from conftest import check, child_env


# --- an argument's item that held an array, rebound to a number (infer._argument_item_writebacks)

def _rebind_to_constant(d):
    d["y"] = 3.5


def _rebind_to_numpy_constant(d):
    d["y"] = np.float64(2.5)


def _rebind_list_item(xs):
    xs[0] = 2.0


@pytest.mark.parametrize("fn, arg", [(_rebind_to_constant, {"y": np.ones(2)}),
                                     (_rebind_to_numpy_constant, {"y": np.ones(2)}),
                                     (_rebind_list_item, [np.ones(2)])])
def test_an_array_item_rebound_to_a_constant_number_is_written_back(fn, arg):
    # (was silently not written back: the caller's container kept the array)
    check(fn, arg)


def _to_float(d):
    d["y"] = float(d["y"][0])


def _to_int(d):
    d["y"] = int(d["y"][0])


def _to_bool(d):
    d["y"] = bool(d["y"][0])


def _to_complex(d):
    d["y"] = complex(d["y"][0])


def _chosen(d):
    d["y"] = 2.0 if d["y"][0] > 0 else 3.0


@pytest.mark.parametrize("fn", [_to_float, _to_int, _to_bool, _to_complex, _chosen])
def test_an_array_item_rebound_to_a_runtime_python_number_is_one(fn):
    # (was written back as a 0-d array, or np.float64 through a runtime choice)
    for start in (np.ones(2), -np.ones(2)):
        eager, compiled = {"y": start.copy()}, {"y": start.copy()}
        fn(eager)
        tpucc.compile(fn)(compiled)
        # (exact types: check's comparison takes an np.float64 for a float)
        assert type(compiled["y"]) is type(eager["y"]) and compiled["y"] == eager["y"]


# --- returned arrays NumPy gives back as the caller's objects (infer._returned_aliases) -------

def _tail(a):
    return a[1:]


def _transposed(a):
    return a.T


def _bumped(a):
    a += 1
    return a


def _same(a):
    return a, a


def _updated_view(a):
    v = a[1:]
    a[0] = 5.0
    return v


@pytest.mark.parametrize("fn", [_tail, _transposed, _bumped, _same, _updated_view])
def test_a_returned_argument_or_view_of_it_is_the_callers(fn):
    # (was a copy: a write into the result did not reach the caller's array)
    eager_a, compiled_a = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3)
    check(fn, eager_a.copy())
    eager, compiled = fn(eager_a), tpucc.compile(fn)(compiled_a)
    for e, c in zip(eager if type(eager) is tuple else (eager,),
                    compiled if type(compiled) is tuple else (compiled,)):
        assert (c is compiled_a) == (e is eager_a)
        e[...] = 7.0
        c[...] = 7.0
    np.testing.assert_array_equal(compiled_a, eager_a)


def _twice(a):
    b = a * 2
    return b, b


def test_an_array_returned_twice_is_one_object():
    # (was two copies)
    compiled = tpucc.compile(_twice)(np.arange(3.0))
    assert compiled[0] is compiled[1]
    check(_twice, np.arange(3.0))


_WEIGHTS = np.arange(3.0)


def _weights_and_sum(a):
    return _WEIGHTS, a.sum()


def test_a_returned_global_array_is_the_global():
    assert tpucc.compile(_weights_and_sum)(np.ones(2))[0] is _WEIGHTS


# --- a returned list or dict argument is the caller's (infer.CallersContainer) ---------------

def _same_list(xs):
    return xs


def _updated_dict(d):
    d["w"] -= 1.0
    d["t"] = float(d["w"].sum())
    return d, d["w"]


def test_a_returned_list_argument_is_the_callers():
    xs = [np.ones(2), np.zeros(2)]
    assert tpucc.compile(_same_list)(xs) is xs
    check(_same_list, [np.ones(2), np.zeros(2)])


def test_a_returned_dict_argument_is_the_callers_after_the_write_backs():
    d = {"w": np.ones(2), "t": 0.0}
    r, w = tpucc.compile(_updated_dict)(d)
    assert r is d and w is d["w"] and d["t"] == 0.0
    check(_updated_dict, {"w": np.ones(2), "t": 0.0})


def test_an_artifact_returning_its_dict_argument_gives_back_the_callers(tmp_path):
    from click.testing import CliRunner
    from tpucc.cli import main
    model = tmp_path / "returns_dict.py"
    model.write_text('from tpucc.aot import entry\n\n@entry({"w": "f32[4]"}, 2.0)\n'
                     'def f(d, k):\n    d["w"] *= k\n    return d, d["w"].sum()\n')
    result = CliRunner().invoke(main, ["build", str(model), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    loaded = tpucc.load(str(tmp_path / "f.tpucc"))
    for call in (lambda d: loaded(d, 2.0), lambda d: loaded(k=2.0, d=d)):
        d = {"w": np.arange(4, dtype=np.float32)}
        r, total = call(d)
        assert r is d and total == 12.0
        np.testing.assert_array_equal(d["w"], np.arange(4, dtype=np.float32) * 2)
    shown = CliRunner().invoke(main, ["inspect", str(tmp_path / "f.tpucc")])
    assert "argument arg0 itself" in shown.output, shown.output


def test_a_numpy_string_argument_keys_the_trace_record_by_its_value(tmp_path):
    """A replayed trace record (snapshot.roots) once keyed an np.str_
    argument by its dtype only: "relu" and "tanh" (both <U4) shared one."""
    import subprocess
    import sys
    import textwrap
    script = tmp_path / "modes.py"
    script.write_text(textwrap.dedent('''
        import numpy as np, tpucc
        def act(x, mode):
            return np.maximum(x, 0) if mode == "relu" else np.tanh(x)
        f = tpucc.compile(act)
        modes = np.array(["relu", "tanh"])
        x = np.array([-1.0, 1.0])
        print(f(x, modes[0]).tolist(), f(x, modes[1]).tolist())
    '''))
    env = child_env(TPUCC_CACHE_DIR=str(tmp_path / "cache"), TPUCC_CACHE_MIN_COMPILE_S="0")
    outs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=env, check=True).stdout for _ in range(2)]
    assert outs[0] == outs[1] and "0.76159" in outs[1], outs
