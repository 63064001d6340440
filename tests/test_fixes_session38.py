"""Session 38's fixes, each checked against eager NumPy or for its message."""
import numpy as np
import pytest

from tpucc import errors as E
from conftest import check, count_hlo, hlo, raises_at


def test_a_runtime_slice_view_made_before_a_loop_is_named_with_a_fix_that_works():
    def before(a, ij):
        b = a[ij[0]:, :ij[1]]
        for _ in range(ij[2]):
            b += 1
        return a

    def inside(a, ij):
        for _ in range(ij[2]):
            b = a[ij[0]:, :ij[1]]
            b += 1
        return a
    a, ij = np.arange(20.0).reshape(4, 5), np.array([1, 3, 2])
    raises_at(before, (a, ij), E.SideEffectError,
              "`b` is a slice of `a` with runtime bounds made before this loop",
              line_of="for _ in range")
    check(inside, a, ij)


# --- the rows of a selection in order (tpucc/ops/masked_rows.py) ------------------------------

def _row_slices(x, k):
    return (x[k:][1:].sum(), x[k:][::2].sum(), x[k::-1][1:].sum(), x[k:][-2:].sum(),
            x[:k][::-1][:2].sum(), x[x > 10][1:-1].mean())


def _neighbours(x, k):
    d = x[k:]
    return (d[1:] - d[:-1]).sum(), np.dot(d[1:], d[:-1]), np.diff(x[:k]).sum(), \
        np.diff(x[k:], 2).sum(), np.diff(x[x > 10]).sum(), np.diff(x[k::-1]).sum()


def _running_totals(x, k):
    return (np.cumsum(x[:k]).sum(), x[k:].cumsum().sum(), np.cumprod(x[k:k + 3] + 1).sum(),
            np.cumsum(x[k::-1]).sum(), (np.cumsum(x[k:]) * x[k:]).sum())


def _writes_through_row_slices(x, k):
    x[k:][1:] = 0
    x[:k][::2] += 100
    s = x[x > 10]
    t = s[1:]
    t += 1                                  # a view of the selection's copy, not of x
    return s.sum(), t.sum(), x


def _rows_of_a_matrix(a, k):
    return (np.cumsum(a[k:], axis=0).sum(axis=0), np.diff(a[k:], axis=0).sum(),
            np.diff(a[k:]).sum(), a[k:][1:, 0].sum(), np.cumsum(a[k:], axis=1).sum())


@pytest.mark.parametrize("program", [_row_slices, _neighbours, _running_totals,
                                     _writes_through_row_slices, _rows_of_a_matrix])
@pytest.mark.parametrize("k", [0, 3, 7, -2, 20])
def test_rows_of_a_selection_sliced_differenced_and_summed_in_order(program, k):
    x = np.arange(24.0).reshape(8, 3) ** 2 if program is _rows_of_a_matrix else \
        np.arange(8.0) ** 2
    check(program, x, k, compile_kwargs={"runtime_args": ("k",)})


def test_a_row_slice_of_a_runtime_slice_in_a_loop_is_one_while():
    def smoothness(x, n):
        total = 0.0
        for k in range(n):
            d = x[k:]
            total += np.abs(np.diff(d)).sum() + d[1:].max()
        return total
    compiled = check(smoothness, np.sin(np.arange(10.0)), 6, compile_kwargs={"runtime_args": ("n",)})
    assert count_hlo(hlo(compiled, np.sin(np.arange(10.0)), 6), "while") == 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_degrees_and_radians_are_numpys_bit_for_bit(dtype):
    x = np.random.default_rng(0).uniform(-10, 10, 1000).astype(dtype)
    check(lambda x: (np.degrees(x), np.radians(x), np.rad2deg(x), np.deg2rad(x)), x,
          rtol=0, atol=0)


def test_a_cast_to_bfloat16_is_refused_as_a_bfloat16_argument_is():
    bfloat16 = pytest.importorskip("ml_dtypes").bfloat16

    def cast(x):
        b = x.astype(bfloat16)
        return (b * 3).astype(np.float32)

    def made(x):
        return np.zeros(3, "bfloat16").astype(np.float32) + x[:3]
    x = np.linspace(0, 1, 5).astype(np.float32)
    raises_at(cast, (x,), E.DTypeError, "a cast to bfloat16", line_of="x.astype(bfloat16)")
    raises_at(made, (x,), E.DTypeError, "a cast to bfloat16", line_of="np.zeros")


def test_runtime_bounds_of_a_slice_of_a_selection_and_a_runtime_step_refused_as_such():
    def inner(x, k, i, j):
        return x[k:][i:].sum(), x[k:][:j].sum(), x[k:][i:j].sum(), x[x > 10][i:].sum()

    def stepped(x, k, i, j):
        return x[k:][::i].sum()
    x = np.arange(10.0) ** 2
    for k, i, j in [(2, 3, 5), (0, -2, 20), (7, 1, -1)]:
        check(inner, x, k, i, j, compile_kwargs={"runtime_args": ("k", "i", "j")})
    raises_at(stepped, (x, 2, 3, 5), E.ShapeError, "runtime step", line_of="x[k:][::i]",
              runtime_args=("k", "i", "j"))


def test_argmax_and_argmin_of_a_selection_that_runs_backwards():
    def f(x, k, s):
        return (np.argmax(x[k::-1]), np.argmin(x[:k][::-1]), x[k::-2].argmax(),
                np.argmax(x[k::s]), np.argmax(x[x > 0][::-1]), np.argmax(x[k:][1::3]))
    rng = np.random.default_rng(0)
    for t in range(8):
        x = rng.integers(-3, 4, 12).astype(np.float64)
        if t % 3 == 0:
            x[rng.integers(0, 12)] = np.nan           # NaN first, in the selection's order
        check(f, x, int(rng.integers(1, 11)), int(rng.choice([-3, -1, 1, 2])),
              compile_kwargs={"runtime_args": ("k", "s")})


def _point_in_polygon(edges, pts):
    inside = np.zeros(len(pts), bool)
    for (xi, yi), (xj, yj) in edges:
        crosses = (yi > pts[:, 1]) != (yj > pts[:, 1])
        inside ^= crosses & (pts[:, 0] < (xj - xi) * (pts[:, 1] - yi) / (yj - yi) + xi)
    return inside, (pts[:, 0] - xi) * 0.5


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_long_loop_over_static_numbers_with_a_big_body_is_one_while(dtype):
    # (137 edges unrolled: 2700 ops, in one fused kernel that XLA:CPU's LLVM
    # ran out of memory compiling; the rest of the loop picks the edges at
    # run time, weak Python floats still, so float32 stays float32)
    t = np.linspace(0, 2 * np.pi, 137, endpoint=False)
    vertices = [tuple(v) for v in np.stack([np.cos(t), np.sin(t)], 1).tolist()]
    edges = list(zip(vertices, vertices[-1:] + vertices[:-1]))
    pts = np.random.default_rng(0).uniform(-1.5, 1.5, (50, 2)).astype(dtype)
    compiled = check(_point_in_polygon, edges, pts, rtol=0, atol=0)
    assert count_hlo(hlo(compiled, edges, pts), "while") == 1


def test_reading_strides_and_as_strided_point_to_sliding_window_view():
    def strides(x):
        return x.strides[0]

    def strided(x, s):
        return np.lib.stride_tricks.as_strided(x, shape=(8, 3), strides=(s, s)).mean(axis=1)

    def windows(x):
        return np.lib.stride_tricks.sliding_window_view(x, 3).mean(axis=1)
    x = np.arange(10.0)
    raises_at(strides, (x,), E.UnsupportedError, "sliding_window_view", line_of="x.strides")
    raises_at(strided, (x, 8), E.UnsupportedError, "sliding_window_view", line_of="as_strided")
    check(windows, x)


def test_reading_a_file_inside_compiled_code_is_refused_not_fixed_at_compile_time(tmp_path):
    path = str(tmp_path / "ckpt.npz")
    np.savez(path, w=np.ones(3))

    def loads(x):
        return x * np.load(path)["w"]

    def passed_in(params, x):           # the hint's fix: a new file is seen at the next call
        return x * params["w"]
    raises_at(loads, (np.ones(3),), E.UnsupportedError, "np.load\\(\\) is not supported",
              line_of="np.load(path)")
    check(passed_in, dict(np.load(path)), np.ones(3))


def test_a_slice_bound_that_is_a_constant_array_is_static():
    def f(a):
        b = a.copy()
        b[np.array(1):np.array(3)] = 7
        return a[:np.array(2)], a[np.int64(1):np.array(4):np.array(2)], b
    check(f, np.arange(5.0))
