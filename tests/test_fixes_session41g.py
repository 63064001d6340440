"""Session 41g: fixes from the image-processing sweep (sweep 41G) and one
from sweep 41H.

- A list of lists (or dicts) changed in place under a runtime `if` that
  reads the item (`for row in img: if row[0] > 100: row[0] = 1`) kept only
  the first row's write: the merge rebuilt the loop iterator's rows as
  copies, so later writes went to lists nobody held, and each trace's copy
  was a new place to promote (compile time exploding with the row count).
"""
from __future__ import annotations

import copy
import time

import numpy as np
import pytest

import tpucc

from conftest import raises_at, same, same_each


# --- bug_05: rows of a list of lists written under an `if` that reads them ---------------

def threshold_rows(img):
    for row in img:
        if row[0] > 100:
            row[0] = 1


def threshold_enumerate(img, t):
    for row in img:
        for j, v in enumerate(row):
            row[j] = 255 if v > t else 0


def threshold_else(img):
    for row in img:
        if row[0] > 100:
            row[0] = 1
        else:
            row[0] = row[0] * 2
    return img[1][0] + 0


def clamp_dicts(objs):
    for o in objs:
        if o["v"] > 100:
            o["v"] = 1
    return objs[-1]["v"]


def scale_list(scales, img):
    for s in scales:
        if s[0] > 1:
            s[0] = 1.0
    return img * scales[1][0]


def running_float(rows):
    total = 0.0
    for r in rows:
        if r[1] > 0.5:
            r[1] = r[1] - 1.0
        total += r[1]
    return total


@pytest.mark.parametrize("img", [[[200], [300]], [[50], [300], [101]], [[200 + i] for i in range(7)]])
def test_rows_written_under_if_reach_the_caller(img):
    same(threshold_rows, img)


def test_many_rows_compile_quickly():
    start = time.time()
    same(threshold_rows, [[200 + i] for i in range(12)])
    assert time.time() - start < 20


def test_enumerate_rows_of_an_image():
    same(threshold_enumerate, [[10, 200, 30], [250, 5, 120], [7, 8, 190]], 100)


def test_else_branch_and_later_read():
    compiled = same_each(threshold_else, ([[200], [30], [150]],), ([[20], [300], [150]],))
    other = [[5], [500], [7]]
    expected = copy.deepcopy(other)
    want = threshold_else(expected)
    assert compiled(other) == want and other == expected


def test_list_of_dicts():
    same(clamp_dicts, [{"v": 200}, {"v": 3}, {"v": 300}])


def test_later_read_sees_the_write():
    same(scale_list, [[2.0], [3.0]], np.ones(2))
    same(scale_list, [[0.5], [3.0], [4.0]], np.arange(3.0, dtype=np.float32))


def test_running_sum_over_rows():
    same(running_float, [[0, 0.7], [1, 0.2], [2, 0.9]])


# --- bug_01: a small int array whose values are known is static where NumPy needs ints ----

from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402


def pad_for_kernel(img, k):
    ry, rx = np.array(k.shape) // 2
    return np.pad(img, ((ry, ry), (rx, rx)), mode="edge")


def pad_int(img):
    r = np.array(img.shape) // 2
    return np.pad(img, int(r[0]))


def pad_item(img):
    r = np.array(img.shape) // 2
    return np.pad(img, (r[1].item(), 1), mode="reflect")


def reshape_reversed(img):
    return img.reshape(np.array(img.shape)[::-1])


def reshape_function(img):
    return np.reshape(img, np.array(img.shape)[[1, 0]]) + 1


def tile_array(img):
    return np.tile(img, np.array([1, 2]))


def tile_computed(img):
    return np.tile(img, np.array(img.shape) // 2)


def windows(img):
    return sliding_window_view(img, np.array([2, 2])).sum(axis=(-1, -2))


def broadcast_rows(img):
    r = np.array(img.shape) // 2
    return np.broadcast_to(img[0], (r[0], img.shape[1]))


def sum_axis(img):
    r = np.array(img.shape) // 2
    return img.sum(axis=r[0] - 1)


def indices_of_half(img):
    return np.indices(np.array(img.shape) // 2)


def sparse_indices(img):
    yy, xx = np.indices(np.array(img.shape), sparse=True)
    return img * (yy + xx)


def known_int_arrays(img):
    # (the checks of one image in one program: each is its own compile otherwise)
    return (pad_int(img), pad_item(img), reshape_reversed(img), reshape_function(img),
            tile_array(img), tile_computed(img), windows(img), broadcast_rows(img), sum_axis(img),
            indices_of_half(img), sparse_indices(img))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_known_int_array_as_static_argument(dtype):
    same(known_int_arrays, np.arange(24, dtype=dtype).reshape(4, 6))


@pytest.mark.parametrize("k", [np.ones((3, 5)), np.ones((1, 3), np.float32)])
def test_pad_by_kernel_half_size(k):
    same(pad_for_kernel, np.arange(12, dtype=np.uint8).reshape(3, 4), k)


def pad_runtime(img, n):
    return np.pad(img, n[0])


def test_runtime_pad_width_still_refused():
    raises_at(pad_runtime, (np.ones((2, 2)), np.array([1])), tpucc.errors.StaticValueError,
              match="pad_width", line_of="np.pad", cache=False)


# --- bug_02: a clipped window start keeps its range through int() and .item() ----------

def crop_int(img, pos):
    y = int(np.clip(pos[0], 0, img.shape[0] - 2))
    return img[y:y + 2] * 2


def crop_item(img, pos):
    y = np.clip(pos[0], 0, img.shape[0] - 2).item()
    return img[y:y + 2] * 2


def crop_both_axes(img, pos):
    y = int(np.clip(pos[0], 0, img.shape[0] - 3))
    x = np.clip(pos[1], 0, img.shape[1] - 2).item()
    return img[y:y + 3, x:x + 2].sum(axis=0)


def crop_int_of_min_max(img, pos):
    y = int(min(max(pos[0], 0), img.shape[0] - 2))
    return img[y:y + 2]


def crops(img, pos):
    return crop_int(img, pos), crop_item(img, pos), crop_both_axes(img, pos)


@pytest.mark.parametrize("pos", [np.array([3, 9]), np.array([-4, 2], np.int32),
                                 np.array([200, 1], np.uint8), np.array([1, 4], np.int16)])
def test_clipped_window_through_int_and_item(pos):
    same(crops, np.arange(30, dtype=np.float32).reshape(5, 6), pos)


def test_int_of_min_max_window():
    img = np.arange(12).reshape(6, 2)
    same_each(crop_int_of_min_max, (img, np.array([3])), (img, np.array([-1])),
              (img, np.array([9])))


# --- bug_06: np.nditer names itself and the loops that compile --------------------------

def nditer_total(img):
    s = 0.0
    for v in np.nditer(img):
        s += float(v)
    return s


def test_nditer_refusal_names_it():
    raises_at(nditer_total, (np.arange(6, dtype=np.uint8).reshape(2, 3),),
              tpucc.errors.UnsupportedError,
              match=r"(?s)np\.nditer is not supported.*x\.ravel\(\).*np\.ndenumerate",
              line_of="np.nditer", cache=False)


def ravel_total(img):
    s = 0.0
    for v in img.ravel():
        s += float(v)
    return s


def flat_total(img):
    s = 0.0
    for v in img.flat:
        s += float(v)
    return s


def ndenumerate_total(img):
    s = 0.0
    for (i, j), v in np.ndenumerate(img):
        s += float(v) * (i + j)
    return s


def hinted_loops(img):
    return ravel_total(img), flat_total(img), ndenumerate_total(img)


def test_loops_the_nditer_hint_names():
    same(hinted_loops, np.arange(6, dtype=np.uint8).reshape(2, 3))


# --- sweep 41H bug_02: a boolean mask known while compiling selects statically -------------

def drop_node(A, t):
    keep = np.arange(A.shape[0]) != t
    return A[keep][:, keep]


def literal_mask(x):
    return x[np.array([True, False, True])]


def masked_positions(x, t):
    idx = np.arange(x.shape[0])
    return x[idx[idx != t]]


def even_rows(x):
    return x[np.arange(x.shape[0]) % 2 == 0] * 2


def mask_with_hole(x):
    keep = np.ones(x.shape[0], bool)
    keep[2] = False
    return x[keep]


def checkerboard(x):
    m = np.add.outer(np.arange(x.shape[0]), np.arange(x.shape[1])) % 2 == 0
    return x[m], x[m].sum()


def mask_in_tuple(x):
    return x[1:, np.arange(x.shape[1]) > 0]


def known_masks(A, a, v, w, b, c, d, e, one, three, two):
    # (the checks in one program, each on its own argument: each is its own compile otherwise)
    return (drop_node(A, one), drop_node(a, three), literal_mask(v), masked_positions(w, two),
            even_rows(b), mask_with_hole(c), checkerboard(d), mask_in_tuple(e))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_known_masks_select_statically(dtype):
    A = np.arange(16).astype(dtype).reshape(4, 4)
    same(known_masks, A, A.copy(), A[0, :3].copy(), A[0].copy(), A.copy(), A[:, 0].copy(),
         A.copy(), A.copy(), 1, 3, 2)


# --- bug_07: np.pad's linear_ramp and statistic modes compile ------------------------------

def pad_stat(img, width, mode, stat_length):
    return np.pad(img, width, mode=mode, stat_length=stat_length)


def pad_stat_default(img, width, mode):
    return np.pad(img, width, mode=mode)


def pad_ramp(img, width, end_values):
    return np.pad(img, width, mode="linear_ramp", end_values=end_values)


def pad_ramp_default(img, width):
    return np.pad(img, width, mode="linear_ramp")


PAD_IMAGES = [np.array([[3, 1, 3, 0, 2, 3], [3, 2, 3, 1, 0, 3], [9, 7, 1, 4, 4, 2]], np.uint8),
              np.arange(15, dtype=np.float32).reshape(3, 5) / 7,
              np.arange(-6, 6, dtype=np.int16).reshape(3, 4)]


@pytest.mark.parametrize("img", PAD_IMAGES, ids=["uint8", "float32", "int16"])
@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
def test_pad_statistic_modes(img, mode):
    # every stat_length at one width, two more widths, the default: in one
    # program (each call of pad_stat is its own compile otherwise)
    def pads(img, mode, stat_lengths, widths):
        out = []
        for stat_length in stat_lengths:
            out.append(pad_stat(img, (1, 2), mode, stat_length))
        for width in widths:
            out.append(pad_stat(img, width, mode, (1, 3)))
        out.append(pad_stat_default(img, 2, mode))
        return tuple(out)
    same(pads, img, mode, (None, 1, 2, (1, 3), 10), (2, ((0, 1), (2, 0))))


@pytest.mark.parametrize("img", PAD_IMAGES + [np.linspace(0, 1, 7)],
                         ids=["uint8", "float32", "int16", "float64-1d"])
def test_pad_linear_ramp(img):
    # Every kind of end_values at one width, every kind of width with one
    # end_values (the two vary independently), and the default: in one
    # program (each call of pad_ramp is its own compile otherwise).
    def ramps(img, all_end_values, widths):
        out = []
        for end_values in all_end_values:
            out.append(pad_ramp(img, (1, 3), end_values))
        for width in widths:
            out.append(pad_ramp(img, width, (1, 250)))
        out.append(pad_ramp_default(img, 2))
        return tuple(out)
    pairs = ((1, 2), (3, 4)) if img.ndim == 2 else (7, 7)
    same(ramps, img, (0, 5, 2.5, pairs),
         (2, (1, 3), ((0, 2), (3, 1)) if img.ndim == 2 else (0, 2)))


def pad_edge_with_stat_length(img):
    return np.pad(img, 1, mode="edge", stat_length=2)


def test_pad_keyword_of_another_mode_is_numpys_error():
    raises_at(pad_edge_with_stat_length, (np.ones((2, 2)),), tpucc.errors.UserCodeError,
              match="unsupported keyword arguments for mode 'edge'", line_of="np.pad",
              cache=False)
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        pad_edge_with_stat_length(np.ones((2, 2)))


def pad_odd(img):
    return np.pad(img, 1, mode="reflect", reflect_type="odd")


def test_pad_mode_refusal_lists_the_modes():
    raises_at(pad_odd, (np.ones((2, 2)),), tpucc.errors.UnsupportedError,
              match="(?s)reflect_type='odd'.*linear_ramp", line_of="np.pad", cache=False)


# --- bug_03: a gather by index arrays selected with one mask (inverse-mapping warps) --------

def warp(img, yi, xi):
    valid = (yi >= 0) & (yi < img.shape[0]) & (xi >= 0) & (xi < img.shape[1])
    out = np.zeros_like(img)
    out[valid] = img[yi[valid], xi[valid]]
    return out


def warp_color(img, yi, xi):
    valid = (yi >= 0) & (yi < img.shape[0]) & (xi >= 0) & (xi < img.shape[1])
    out = np.full(img.shape, 7, img.dtype)
    out[valid] = img[yi[valid], xi[valid]]
    return out, img[yi[valid], xi[valid]].sum(axis=0)


def rows_under_mask(img, yi):
    keep = yi % 2 == 0
    return img[yi[keep]].sum(), (img[yi[keep]] * 2).max()


def two_masks(img, yi, xi):
    return img[yi[yi > 0], xi[xi > 0]]


def _maps(h, w, shift):
    yy, xx = np.indices((h, w))
    return yy + shift, (xx * 2 - shift) % (w + 2) - 1


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_inverse_mapping_warp(dtype):
    # the shifts change the maps' values only: one compiled fn for them all
    img = (np.arange(20) * 3).astype(dtype).reshape(4, 5)
    shifts = (0, 1, -2)
    same_each(warp, *[(img, *_maps(4, 5, shift)) for shift in shifts])
    same_each(warp_color, *[(np.stack([img, img + 1, img * 2], axis=-1), *_maps(4, 5, shift))
                            for shift in shifts])


def test_rows_gathered_under_a_mask():
    same(rows_under_mask, np.arange(12.0).reshape(4, 3), np.array([0, 2, 3, 2, 1, 0]))


def test_two_masks_still_refused():
    raises_at(two_masks, (np.ones((3, 3)), np.array([0, 1, 2]), np.array([2, 1, 0])),
              tpucc.errors.ShapeError, match="index array", line_of="img[yi[", cache=False)
