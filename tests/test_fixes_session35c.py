"""Session 35's fixes (c): bugs found by the session 35 sweeps, each with
the program that showed it."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from numpy.lib.stride_tricks import sliding_window_view

from conftest import assert_same, check, raises_at


def guarded_normalize(x):
    info = np.finfo(x.dtype)
    return x / (x.sum() + info.tiny), info.resolution, x * info.epsneg


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_finfo_tiny_a_cached_property_of_numpy_is_a_static_fact(dtype):
    # (was refused as a user's functools.cached_property whose cache would
    # outlive the call, unless the process had read it eagerly before)
    # (the fields are computed on first reading, as a process that has not
    # read them yet sees them)
    for name in ("tiny", "resolution", "epsneg"):
        vars(np.finfo(dtype)).pop(name, None)
    x = np.arange(4, dtype=dtype)
    compiled = tpucc.compile(guarded_normalize)(x)
    assert_same(guarded_normalize(x), compiled)


def forward_fill_in_place(x):
    idx = np.where(~np.isnan(x), np.arange(len(x)), 0)
    np.maximum.accumulate(idx, out=idx)
    return x[idx]


def forward_fill(x):
    idx = np.where(~np.isnan(x), np.arange(len(x)), 0)
    idx[...] = np.maximum.accumulate(idx)
    return x[idx]


def test_a_ufunc_methods_out_is_refused_under_the_name_the_user_wrote():
    # (was "np.accumulate(out=...)": the ufunc's name was dropped)
    x = np.array([np.nan, 1.0, np.nan, 4.0, np.nan])
    err = raises_at(forward_fill_in_place, (x,), match=r"np\.maximum\.accumulate\(out=",
                    line_of="np.maximum.accumulate(idx, out=idx)")
    assert "out[...] = np.maximum.accumulate(...)" in err.hint
    check(forward_fill, x)       # (the hint)


def moving_sum(x):
    w = sliding_window_view(x, 3, writeable=True)
    return w.sum(axis=1), w[1:, ::2]


def write_through_windows(x):
    w = sliding_window_view(x, 3, writeable=True)
    w[0, 0] = 5
    return x


def test_a_writeable_sliding_window_view_is_read_and_only_a_write_through_it_refused():
    # (was refused where made, even when only read)
    check(moving_sum, np.arange(6.0))
    raises_at(write_through_windows, (np.arange(6.0),), match="sliding_window_view",
              line_of="w[0, 0] = 5")


@pytest.mark.parametrize("fn", [
    lambda x: np.percentile(x, [[10, 20], [30, 45]], axis=0),
    lambda x: np.quantile(x, [[0.1], [0.5]], axis=1, keepdims=True),
    lambda x: np.nanquantile(x, np.array([[0.25, 0.5, 1.0]])),
    lambda x: np.nanpercentile(x, [[10, 90]], axis=(0, 1)),
])
def test_a_2d_q_gives_quantiles_with_qs_shape_in_front(fn):
    # (NumPy accepts q of two dimensions; was refused as its ValueError)
    x = np.arange(12.0).reshape(4, 3)
    x[1, 2] = np.nan
    check(fn, x)
    check(fn, np.arange(12.0).reshape(4, 3))


def three_d_q(x):
    return np.quantile(x, [[[0.5]]])


def test_a_3d_q_raises_numpys_valueerror():
    raises_at(three_d_q, (np.arange(4.0),), match="q must be a scalar or 1d",
              line_of="np.quantile")


def image_histogram(img):
    return np.bincount(img.ravel(), minlength=256)


def weighted_votes(mask, w):
    return np.bincount(mask, weights=w, minlength=3)


def short_histogram(img):
    return np.bincount(img.ravel(), minlength=16)


def test_bincount_of_an_unsigned_array_with_minlength_past_its_values_has_a_static_length():
    # (was refused: "its length, max(x) + 1, depends on the values")
    img = (np.arange(64).reshape(8, 8) * 37 % 256).astype(np.uint8)
    check(image_histogram, img)
    check(weighted_votes, np.array([True, False, True]), np.array([0.5, 2.0, 1.25], np.float32))
    err = raises_at(short_histogram, (img,), match="depends on the values",
                    line_of="np.bincount")
    assert "minlength=256" in err.hint


def signed_bytes(im):
    return im.view(np.int8), im.view(), im.view(np.ndarray)


def float_bits(x):
    bits = x.view(np.uint32)
    bits[0] = 0x3F800000        # 1.0f, written through the view into x
    x[1] = -2.0                 # and a write into x read through the view
    return bits, x.view(np.int32) >> 31, x[2].view(np.int32)


def view_pairs(im):
    return im.view(np.uint16)


def test_x_view_of_a_dtype_of_the_same_size_reinterprets_the_bytes():
    # (was refused: "array attribute or method `.view` is not supported")
    check(signed_bytes, np.array([[0, 127, 128, 255]], np.uint8))
    check(float_bits, np.array([0.5, 3.0, -1.5], np.float32))
    err = raises_at(view_pairs, (np.zeros((2, 4), np.uint8),), match="same size",
                    line_of="im.view(np.uint16)")
    assert "<< 8" in err.hint


def threshold_into_default(im):
    return np.select([im < 50, im > 200], [0, 255], im)


def threshold_kinds_that_cast(im, x):
    return (np.select([im < 50], [-3], im.astype(np.int8)),
            np.select([x < 0.5], [0.25], x), np.select([x < 0.5], [1], x))


def test_select_refuses_a_choice_numpys_copyto_cannot_cast_as_it_does():
    # (NumPy: the Python ints become int64 arrays, not castable 'same_kind'
    # into the uint8 result; compiled code returned a result)
    im = np.array([10, 100, 250], np.uint8)
    raises_at(threshold_into_default, (im,), error=tpucc.UserCodeError,
              match=r"TypeError: Cannot cast array data from dtype\('int64'\) to "
                    r"dtype\('uint8'\) according to the rule 'same_kind'", line_of="np.select")
    check(threshold_kinds_that_cast, im, np.array([0.2, 0.7], np.float32))


def levels_of_runtime_count(im):
    n = int(im.max()) // 64
    return [i * 64 for i in range(n)]


def levels_masked(im):
    n = int(im.max()) // 64
    v = np.arange(4) * 64
    keep = np.arange(4) < n
    return np.where(keep, v, -1)


def positives(x):
    return [v for v in x if v > 0]


def test_a_comprehension_over_a_runtime_range_is_refused_naming_the_range():
    # (was refused as if its `if` tested a runtime value: it has no `if`)
    img = np.arange(64, dtype=np.uint8).reshape(8, 8) * 4
    err = raises_at(levels_of_runtime_count, (img,), match=r"range\(\) of a runtime bound",
                    line_of="for i in range(n)")
    assert "`if`" not in str(err)
    check(levels_masked, img)       # (the hint)
    raises_at(positives, (np.array([1.0, -2.0]),), match="comprehension's `if` tests",
              line_of="if v > 0")


def notch(im):
    F = np.fft.fftshift(np.fft.fft2(im))
    cy, cx = np.array(F.shape) // 2
    F[cy - 1:cy + 2, cx - 1:cx + 2] = 0
    return np.abs(np.fft.ifft2(np.fft.ifftshift(F)))


def center_parts(im):
    c = np.array(im.shape) // 2
    cy, cx = c
    return (im[c[0] - 2:c[0] + 2, c[1] - 2:c[1] + 2], np.zeros((cy, cx)) + im[:cy, :cx],
            im.reshape(np.asarray(im.shape)[0] // 2, -1))


def center_changed(im, k):
    c = np.array(im.shape) // 2
    c[0] = k                    # a constant only where k is one
    return im[c[0]:c[0] + 2]


def test_integer_arithmetic_on_static_numbers_gives_static_bounds_and_shapes():
    # (np.array(F.shape) // 2 was a runtime value: slicing with it was refused
    # as a data-dependent shape)
    img = np.arange(64, dtype=np.uint8).reshape(8, 8)
    check(notch, img, atol=1e-9)
    check(center_parts, img)
    raises_at(center_changed, (img, 3), match="runtime bounds", line_of="return im[c[0]",
              runtime_args=("k",))
    check(center_changed, img, 3)     # (k a compile-time number: c[0] is a constant again)


def write_window(w, i):
    h = np.zeros(6)
    h[i:i + 3] = w
    return h


def write_window_clipped(w, i):
    h = np.zeros(6)
    j = np.clip(i, 0, 6 - 3)
    h[j:j + 3] = w
    return h


def test_an_array_assigned_to_a_runtime_slice_compiles_with_numpys_length_check():
    # (was refused, first as "x[mask] = values", then as a slice with runtime
    # bounds; session 43 pairs the value's rows with the slice's in order)
    for i in (0, 2, 3):
        check(write_window, np.ones(3), i, compile_kwargs={"runtime_args": ("i",)})
        check(write_window_clipped, np.arange(3.0), i, compile_kwargs={"runtime_args": ("i",)})
    with pytest.raises(ValueError):
        write_window(np.ones(3), 4)                 # NumPy: h[4:7] holds two
    with pytest.raises(tpucc.TpuccError, match="could not broadcast input array from shape"):
        tpucc.compile(write_window, cache=False, runtime_args=("i",))(np.ones(3), 4)


class Recorder:
    def __init__(self):
        self.w = np.ones(3)
        self.act = None

    def loss(self, x):
        h = x * self.w
        self.act = h
        return np.sum(h ** 2)


def test_a_standalone_gradients_error_is_called_from_the_users_line_not_tpuccs():
    # (the "called from" frame was tpucc/autodiff.py's apply_gradient)
    import inspect
    with pytest.raises(tpucc.TpuccError) as info:
        call_line = inspect.currentframe().f_lineno + 1
        tpucc.grad(Recorder.loss)(Recorder(), np.ones(3))
    err = info.value
    assert "tpucc/autodiff.py" not in str(err)
    assert [(c.file, c.line) for c in err.callers] == [(__file__, call_line)]
