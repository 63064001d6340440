"""Lists a counted loop grew, returned: their items are rows of one buffer
(infer/stacking.py), so the executable returns the buffer once and the
driver splits it (infer.RowOf), as it does for the rows of an array
(`list(y)`); results equal eager NumPy, Python types
and NumPy kinds included, in a compiled call, a replayed trace record and a
loaded artifact."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc.cli import main
from conftest import assert_same

STEPS = 60      # more than the unroll budget: one counted While


def fit(x, y):
    w = np.zeros(x.shape[1])
    losses, weights = [], []
    for step in range(STEPS):
        err = x @ w - y
        losses.append(float(np.mean(err ** 2)))     # Python floats
        w = w - 0.05 * (x.T @ err) / len(y)
        weights.append(w * 1.0)                     # arrays
    return w, losses, weights


def kinds(x):
    sums = [np.sum(r) for r in x]                   # NumPy scalars
    zeros = [np.zeros(()) + r[0] for r in x]        # NumPy float64 scalars too
    flags = [bool(r[0] > 0) for r in x]             # Python bools
    counts = [int(np.argmax(r)) for r in x]         # Python ints
    singles = [r.astype(np.float32) for r in x]
    return sums, zeros, flags, counts, singles


def few(x):
    return [r.sum() for r in x][:3] + [x[0, 0]]     # 3 rows of the buffer: outputs of their own


def rows_of_an_array(x):
    y = x * 2
    return list(y), list(x)                         # views: returned as copies


def rows_then_the_base_changes(x):
    y = x * 2
    rows = [y[i] for i in range(6)]
    y[0] = 7.0                                      # rows[0] is a view of y: it shows 7
    y[3, 1] = -1.0
    return rows, y


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((STEPS, 4))
    return x, x @ np.array([1.0, -2.0, 0.5, 3.0])


def _outputs(fn, *args) -> int:
    text = tpucc.compile(fn, cache=False).lower(*args).as_text()
    entry = text[text.index("ENTRY"):]
    root = entry[entry.index("ROOT"):].split("\n")[0]
    return root.count("f64[") + root.count("f32[") + root.count("pred[") + root.count("s64[")


@pytest.mark.parametrize("fn, args", [(fit, _data()), (kinds, (_data()[0],)),
                                      (few, (_data()[0],)), (rows_of_an_array, (_data()[0],)),
                                      (rows_then_the_base_changes, (_data()[0],))])
def test_returned_rows_equal_numpy(fn, args):
    assert_same(fn(*args), tpucc.compile(fn, cache=False)(*args))
    assert_same(fn(*args), tpucc.compile(fn, cache=False)(*args))     # the builder's second call


def test_a_grown_list_is_one_output():
    x, y = _data()
    assert _outputs(fit, x, y) == 3         # w, the losses' buffer, the weights' buffer
    assert _outputs(kinds, x) == 5
    assert _outputs(few, x) == 4            # below ROW_GROUP_MIN: one output each
    assert _outputs(rows_of_an_array, x) == 2
    assert _outputs(rows_then_the_base_changes, x) == 2


def test_items_are_independent_copies():
    x, y = _data()
    _, losses, weights = tpucc.compile(fit, cache=False)(x, y)
    weights[0][0] = 99.0
    assert weights[1][0] != 99.0 and weights[0].flags.writeable
    assert weights[0].base is None or weights[0].base is not weights[1].base


def test_a_replayed_trace_record_splits_the_buffer(tmp_path, monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")       # store even a fast compile
    x, y = _data()
    tpucc.compile(fit, cache=str(tmp_path))(x, y)
    again = tpucc.compile(fit, cache=str(tmp_path))
    assert_same(fit(x, y), again(x, y))
    (entry,) = again._cache.values()
    assert entry.times.replayed


MODEL = textwrap.dedent(f"""
    import numpy as np
    from tpucc.aot import entry

    @entry("f64[{STEPS},4]")
    def sums(x):
        return [float(np.sum(r)) for r in x], [r * 2 for r in x]
""")


def test_an_artifact_returns_the_rows(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    result = CliRunner().invoke(main, ["build", str(model), "--entry", "sums", "--out",
                                       str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    x = _data()[0]
    got = tpucc.load(str(tmp_path / "out" / "sums.tpucc"))(x)
    assert_same(([float(np.sum(r)) for r in x], [r * 2 for r in x]), got)
