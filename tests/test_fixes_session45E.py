"""Fixes from sweep 45E (training small CNNs and MLPs with tpucc.nn and
tpucc.grad): generators whose items and consumers both index with runtime
values; frozen dataclasses bound on one runtime path only; nn pooling and
conv options computed from shapes through a small NumPy array; the message
of a runtime-bounded slice fed to an nn loss; np.roll with a runtime array
of shifts; a window slice whose start is written twice inline."""
import dataclasses

import numpy as np
import pytest

import tpucc
from tpucc import nn
from conftest import raises_at, same


# --- bug_02: a generator and its consumer both index with runtime values -----------

def test_generator_with_runtime_index_consumed_by_a_runtime_index():
    def f(z, y, perm):
        s = 0.0
        for yi in (y[p] for p in perm):
            s += z[yi]
        return s
    same(f, np.arange(5.0), np.array([3, 1]), np.array([1, 0]))
    same(f, np.arange(5, dtype=np.float32), np.array([4, 0, 2], np.int32), np.array([2, 0, 1]))


def test_generator_of_int_items_and_of_a_runtime_scalar_index():
    def ints(z, y, perm):
        return sum(z[v] for v in [int(y[p]) for p in perm]) + \
            sum(z[v] for v in (int(y[p]) for p in perm))

    def scalar(z, y, k):
        s = 0
        for yi in (y[k] for _ in range(2)):
            s += z[yi]
        return s
    same(ints, np.arange(5.0), np.array([3, 1]), np.array([1, 0]))
    same(scalar, np.arange(5), np.array([3, 1]), np.int64(1))


def test_shuffled_minibatch_generator_feeds_a_gradient_step():
    def loss(w, xb, yb):
        return nn.cross_entropy(xb @ w, yb)

    def batches(x, y, bs, perm):
        for i in range(0, x.shape[0], bs):
            idx = perm[i:i + bs]
            yield x[idx], y[idx]

    def train(w, x, y, perm):
        for xb, yb in batches(x, y, 3, perm):
            w = w - 0.1 * tpucc.grad(loss)(w, xb, yb)
        return w

    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(6, 4)), rng.normal(size=(4, 3))
    y, perm = np.array([0, 2, 1, 1, 0, 2]), rng.permutation(6)
    got = tpucc.compile(train, cache=False)(w.copy(), x, y, perm)
    expected = w.copy()
    for i in range(0, 6, 3):      # the gradient of the mean cross entropy, by hand
        xb, yb = x[perm[i:i + 3]], y[perm[i:i + 3]]
        z = xb @ expected
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p[np.arange(3), yb] -= 1
        expected = expected - 0.1 * xb.T @ p / 3
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert got.dtype == expected.dtype


def test_map_and_pair_generators_over_a_permutation():
    def pairs(x, y, perm):
        s = 0.0
        for xi, yi in ((x[i], y[i]) for i in perm):
            s += xi[yi]
        return s

    def mapped(x, y, perm):
        out = []
        for xb, yb in map(lambda idx: (x[idx], y[idx]), perm.reshape(2, 2)):
            out.append(xb[np.arange(2), yb].sum())
        return out
    x, y = np.arange(12.0).reshape(4, 3), np.array([2, 0, 1, 2])
    same(pairs, x, y, np.array([3, 1, 0, 2]))
    same(mapped, x, y, np.array([3, 1, 0, 2]))


def test_generator_partly_consumed_with_runtime_index_checks():
    # the index checks in the generator are no change of outside state, so
    # leaving it by a runtime break is no refusal
    def f(z, y, perm):
        s = 0.0
        for yi in (y[p] for p in perm):
            if z[yi] > 2.5:
                break
            s += z[yi]
        return s
    same(f, np.arange(5.0), np.array([1, 3, 2]), np.array([0, 1, 2]))


def test_generator_reading_an_array_written_in_place_is_still_refused():
    def f(z, y, perm):
        g = (y[p] for p in perm)
        y[0] = 4
        s = 0.0
        for yi in g:
            s += z[yi]
        return s
    raises_at(f, (np.arange(5.0), np.array([3, 1]), np.array([1, 0])),
              tpucc.SideEffectError, match="written in place", line_of="for yi in g")


# --- bug_05: a frozen dataclass bound on one runtime path only ---------------------

@dataclasses.dataclass(frozen=True)
class _P:
    w: np.ndarray


@dataclasses.dataclass(frozen=True)
class _Params:
    w: np.ndarray
    b: np.ndarray


def _mse(p, x, y):
    return np.mean((x @ p.w + p.b - y) ** 2)


def test_frozen_dataclass_bound_in_a_runtime_if():
    def f(x):
        if x.sum() > 0:
            q = _P(x * 2)
            x = q.w
        return x

    def g(x):
        if x.sum() > 0:
            q = _Params(x * 2, np.float32(1.5))
            x = q.w + q.b
        else:
            x = x - 1
        return x
    for x in (np.ones(3), -np.ones(3), np.arange(4, dtype=np.float32)):
        same(f, x)
        same(g, x)


def test_frozen_dataclass_bound_in_a_runtime_while():
    def f(x):
        n = 0
        while x.sum() < 10 and n < 5:
            q = _Params(x * 2, x)
            x = q.w
            n += 1
        return x, n
    same(f, np.ones(3))
    same(f, np.full(3, 5.0))
    same(f, np.ones(2, np.float32))


def test_train_frozen_dataclass_params_until_a_loss_threshold():
    def while_replace(p, x, y, tol):
        l = _mse(p, x, y)
        n = 0
        while l > tol and n < 50:
            l, g = tpucc.value_and_grad(_mse)(p, x, y)
            p = dataclasses.replace(p, w=p.w - 0.1 * g.w, b=p.b - 0.1 * g.b)
            n += 1
        return p, n

    def for_break(p, x, y, tol):
        for it in range(50):
            l, g = tpucc.value_and_grad(_mse)(p, x, y)
            if l < tol:
                break
            p = _Params(p.w - 0.1 * g.w, p.b - 0.1 * g.b)
        return p, it
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 3))
    y = x @ np.array([1.0, -2.0, 0.5]) + 0.3
    p = _Params(np.zeros(3), np.float64(0.0))
    for fn in (while_replace, for_break):
        for tol in (0.05, 1e-9, 100.0):
            expected, got = fn(p, x, y, tol), tpucc.compile(fn, cache=False)(p, x, y, tol)
            assert type(got[0]) is _Params and got[1] == expected[1]
            np.testing.assert_allclose(got[0].w, expected[0].w, rtol=1e-9)
            assert got[0].w.dtype == expected[0].w.dtype
            np.testing.assert_allclose(got[0].b, expected[0].b, rtol=1e-9)


def test_value_bound_on_one_path_and_read_after_is_refused():
    # a tuple, named tuple or frozen dataclass bound on one runtime path only
    # and read after the `if` is refused as an array would be, not read as
    # a value of placeholders
    import collections
    NT = collections.namedtuple("NT", "w b")

    def dataclass_read(x):
        if x.sum() > 0:
            q = _Params(x * 2, x)
        return q.w

    def namedtuple_read(x):
        if x.sum() > 0:
            q = NT(x * 2, x)
        return q.w

    def tuple_read(x):
        if x.sum() > 0:
            q = (x * 2, 1)
        return q[0]
    for f in (dataclass_read, namedtuple_read, tuple_read):
        raises_at(f, (np.ones(3),), tpucc.MergeError, cache=False,
                  match="`q` is not defined on every path", line_of="return q")


# --- bug_06: nn window options computed from shapes through a small array ----------

def test_pool_kernel_computed_from_shapes_through_an_array():
    def max_pool(x):
        k = np.array(x.shape[2:]) // 2
        return nn.max_pool2d(x, int(k[0]))

    def avg_pool_tuple(x):
        k = np.array(x.shape[2:]) // 2
        return nn.avg_pool2d(x, (int(k[0]), int(k[1])), stride=int(k[1]))

    def global_pool(x):
        return nn.max_pool2d(x, tuple(np.array(x.shape[2:])))

    def padded(x):
        p = np.array(x.shape[2:]) // 4
        return nn.avg_pool2d(x, 3, stride=1, padding=p[0], count_include_pad=False)
    for x in (np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6),
              np.cos(np.arange(2 * 3 * 8 * 8)).reshape(2, 3, 8, 8)):
        for f in (max_pool, avg_pool_tuple, global_pool, padded):
            same(f, x)


def test_conv_options_computed_from_shapes_through_an_array():
    def conv_pad(x, w):
        p = np.array(x.shape[2:]) // 4
        return nn.conv2d(x, w, padding=int(p[0]))

    def conv_stride_dilation(x, w):
        s = np.array(w.shape[2:]) - 1
        return nn.conv2d(x, w, stride=(int(s[0]), 1), dilation=s[1] // 2, padding=(1, s[1]))

    def conv_groups(x, w):
        g = np.array(x.shape)[1] // np.array(w.shape)[1]
        return nn.conv2d(x, w, groups=int(g))
    x = np.cos(np.arange(2 * 2 * 8 * 8, dtype=np.float32)).reshape(2, 2, 8, 8)
    w = np.sin(np.arange(2 * 2 * 3 * 3, dtype=np.float32)).reshape(2, 2, 3, 3)
    same(conv_pad, x, w)
    same(conv_pad, x.astype(np.float64), np.ones((1, 2, 3, 3)))
    same(conv_stride_dilation, x, w)
    same(conv_groups, x, w[:, :1])


def test_pool_kernel_from_runtime_values_is_still_refused():
    def f(x, k):
        return nn.max_pool2d(x, int(k[0]))
    raises_at(f, (np.ones((1, 1, 4, 4), np.float32), np.array([2, 2])), tpucc.StaticValueError,
              match="max_pool2d: a kernel size", line_of="nn.max_pool2d", cache=False)


# --- bug_03: a runtime-bounded slice whose length an nn loss uses as a size --------

def test_minibatch_slice_with_runtime_start_into_cross_entropy_names_the_slice():
    def f(x, y, i):
        xb = x[i:i + 2]
        return nn.cross_entropy(xb, y[i:i + 2])
    err = raises_at(f, (np.ones((10, 3)), np.zeros(10, np.int64), np.int64(3)), tpucc.ShapeError,
                    match=r"x\[i:j\], made here, has its length used as np.arange's bound at "
                          r"line \d+ \(in nn.py:\d+\): a slice with runtime bounds",
                    line_of="xb = x[i:i + 2]", cache=False)
    assert "np.clip(i, 0, n - k)" in err.hint


def test_the_clipped_window_the_hint_gives_compiles():
    def f(x, y, i):
        j = np.clip(i, 0, x.shape[0] - 2)
        return nn.cross_entropy(x[j:j + 2], y[j:j + 2])
    x = np.cos(np.arange(30.0)).reshape(10, 3)
    y = np.arange(10) % 3
    for i in (np.int64(3), np.int64(9), np.int64(-4)):
        same(f, x, y, i)


def test_length_of_a_selection_as_a_shape_names_the_selection():
    def mask_zeros(x):
        sel = x[x > 0]
        return np.zeros(sel.shape)

    def slice_arange(x, n):
        head = x[:n]
        m = len(head)
        return np.arange(m) * 2.0
    raises_at(mask_zeros, (np.arange(-2.0, 3.0),), tpucc.ShapeError,
              match=r"x\[mask\], made here, has its length used in an array's shape",
              line_of="sel = x[x > 0]", cache=False)
    raises_at(slice_arange, (np.arange(5.0), np.int64(2)), tpucc.ShapeError,
              match=r"x\[i:j\], made here, has its length used as np.arange's bound at line",
              line_of="head = x[:n]", cache=False)


def test_lengths_of_runtime_slices_still_compute():
    def f(x, i):
        xb = x[i:]
        return xb.sum() / xb.shape[0], len(xb)
    same(f, np.arange(6.0), np.int64(2))


# --- bug_04: np.roll by a runtime array of shifts -----------------------------------

def test_roll_by_a_runtime_array_of_shifts():
    def two_axes(x, s):
        return np.roll(x, s, axis=(0, 1))

    def one_axis_summed(x, s):
        return np.roll(x, s, axis=1)

    def flat(x, s):
        return np.roll(x, s)

    def augment(imgs, shifts, i):
        return np.roll(imgs[i], shifts[i], axis=(1, 2))
    x = np.arange(12.0).reshape(3, 4)
    for s in (np.array([1, -5]), np.array([0, 7], np.int32), np.array([255, 2], np.uint8),
              np.array([True, True])):
        same(two_axes, x, s)
        same(one_axis_summed, x.astype(np.int32), s)
        same(one_axis_summed, x.T.copy(), s)      # (uint8: 257 rows, not 1, rolled)
        same(flat, x, s)
    same(two_axes, np.arange(6).reshape(2, 3), np.array([5, 1]))
    imgs = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    same(augment, imgs, np.array([[1, -2], [3, 9]]), np.int64(1))


def test_roll_by_a_two_dimensional_runtime_shift_array_raises_numpys_error():
    def f(x, s):
        return np.roll(x, s, axis=(0, 1))
    with pytest.raises(ValueError, match="should be scalars or 1D sequences"):
        f(np.ones((3, 4)), np.ones((2, 2), np.int64))
    raises_at(f, (np.ones((3, 4)), np.ones((2, 2), np.int64)), tpucc.UserCodeError,
              match="should be scalars or 1D sequences", line_of="np.roll", cache=False)


# --- bug_01: a window whose clipped start is written twice inline ------------------

def test_window_with_the_clipped_start_written_twice():
    def crop_inline(x, o):
        return x[np.clip(o[0], 0, 2):np.clip(o[0], 0, 2) + 4] * 2

    def crop_2d(img, o):
        return img[np.clip(o[0], 0, 3):np.clip(o[0], 0, 3) + 2,
                   np.clip(o[1], 0, 2):np.clip(o[1], 0, 2) + 3]

    def crop_builtins(img, o):
        return img[:, min(max(o[1], 0), 2):min(max(o[1], 0), 2) + 3]

    def random_crops(imgs, offsets):
        return np.stack([im[np.clip(k, 0, 2):np.clip(k, 0, 2) + 3]
                         for im, k in zip(imgs, offsets)])
    for o in (np.array([5, -1]), np.array([-3, 1]), np.array([1, 7], np.int32)):
        same(crop_inline, np.arange(6.0), o)
        same(crop_inline, np.arange(6, dtype=np.int16), o)
        same(crop_2d, np.arange(30.0).reshape(5, 6), o)
    same(crop_builtins, np.arange(30.0).reshape(5, 6), np.array([1, 7]))
    same(random_crops, np.arange(10.0).reshape(2, 5), np.array([4, -2]))


def test_two_different_starts_inline_are_still_refused():
    def f(x, o):
        return x[np.clip(o[0], 0, 2):np.clip(o[1], 0, 2) + 4] * 2
    raises_at(f, (np.arange(6.0), np.array([1, 2])), tpucc.ShapeError,
              match="a slice with runtime bounds", line_of="np.clip", cache=False)
