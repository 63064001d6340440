"""Fixes from sweep 46E (clustering and neighbourhood algorithms): math.dist;
`C[k] = a if c else b` whose arms differ in dtype, stored into an array
element; np.median / percentile / quantile (and the nan- reductions) of
`D[D > 0]` with a mask of several axes; list.append in every arm of a
runtime `if`.
"""
import math

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


# --- math.dist ---------------------------------------------------------------------------------

def dist_of_floats(p, q):
    return math.dist((float(p[0]), float(p[1])), (float(q[0]), float(q[1])))


def dist_of_arrays(p, q):
    return math.dist(p, q)


def dist_mixed(p, q):
    return math.dist([p[0], p[1], 2], (q[0], 1.5, q[2]))


def dist_in_a_loop(X, c):
    best, best_d = 0, math.inf
    for i in range(len(X)):
        d = math.dist(X[i], c)
        if d < best_d:
            best, best_d = i, d
    return best, best_d


def dist_of_other_lengths(p, q):
    return math.dist((p[0], p[1]), (q[0],))  # <- here


def test_math_dist_of_runtime_coordinates():
    p, q = np.array([0., 0., 1.]), np.array([3., 4., 5.])
    same_each(dist_of_floats, (p, q), (q, p))
    same_each(dist_of_arrays, (p, q), (p[::-1].copy(), q))
    same(dist_of_arrays, np.array([1, 2]), np.array([4, 6]))          # ints: floats
    same(dist_of_arrays, p.astype(np.float32), q.astype(np.float32))
    same(dist_mixed, p, q)
    same(dist_in_a_loop, np.array([[0., 0.], [2., 2.], [5., 1.]]), np.array([2.5, 1.5]))


def test_math_dist_of_points_of_other_lengths_raises_pythons_error():
    raises_at(dist_of_other_lengths, (np.ones(2), np.ones(2)), tpucc.errors.UserCodeError,
              "both points must have the same number of dimensions", line_of="<- here",
              cache=False)


# --- `a if c else b` stored into an array element ----------------------------------------------

def update_centres(C, X, lab):
    for k in range(len(C)):
        C[k] = X[lab == k].mean(0) if np.any(lab == k) else C[k]
    return C


def update_one(C, x, lab):
    for k in range(len(C)):
        C[k] = x[lab == k].mean() if np.any(lab == k) else C[k]
    return C


def store_either(C, a, b):
    C[1] = a if a.sum() > b.sum() else b
    return C


def store_in_a_counted_loop(C, X):
    for i in range(X.shape[0]):
        C[i % 2] = X[i] * 0.5 if X[i].sum() > 2 else C[i % 2]
    return C


def store_int64_scalar(C, x):
    C[0] = x.max() if x.sum() > 0 else x.min()
    return C


def store_float_scalar_into_int(C, x):
    C[0] = x.mean() if x.sum() > 0 else C[1]  # <- here
    return C


_X = np.array([[1, 2], [2, 3], [10, 11], [11, 13]])
_LAB = np.array([0, 0, 1, 1])


def test_conditional_expression_stored_casts_each_arm():
    same(update_centres, np.zeros((3, 2), np.int64), _X, _LAB)
    same(update_centres, np.zeros((3, 2), np.int32), _X, _LAB)
    same(update_centres, np.zeros((3, 2), np.float32), _X, _LAB)
    same(update_centres, np.full((3, 2), 7, np.uint8), _X.astype(np.float32), _LAB)
    same(update_one, np.zeros(3, np.uint8), np.array([1.5, 2.5, 9.]), np.array([0, 0, 1]))
    same(update_one, np.zeros(3, np.float32), np.array([1.5, 2.5, 9.]), np.array([0, 0, 1]))
    same_each(store_either, (np.zeros((2, 3), np.int16), np.arange(3.), np.arange(3, dtype=np.int8)),
              (np.zeros((2, 3), np.int16), np.zeros(3), np.arange(3, dtype=np.int8)))
    same(store_in_a_counted_loop, np.zeros((2, 2), np.int64), np.array([[1., 2.], [0., 1.],
                                                                        [3., 3.]]))
    same(store_int64_scalar, np.zeros(2, np.float32), np.array([3, -4, 2], np.int64))


def test_a_numpy_scalar_into_a_signed_int_array_stays_refused():
    # NumPy converts it as int() does (np.nan raises there): a cast in the arm
    # would skip that check
    raises_at(store_float_scalar_into_int, (np.zeros(3, np.int64), np.array([1., 2.])),
              tpucc.errors.MergeError, "different dtypes: f64\\[\\] and i64\\[\\]",
              line_of="<- here", cache=False)


# --- order statistics of x[mask] with a mask of several axes ----------------------------------

def median_positive(D):
    return np.median(D[D > 0])


def percentiles_positive(D):
    return np.percentile(D[D > 0], [10, 50, 90])


def quantile_above(D):
    return np.quantile(D[D > 1], 0.3)


def nanmedian_positive(D):
    return np.nanmedian(D[D > 0])


def nanmean_above(D):
    return np.nanmean(D[D > 1]), np.nanmax(D[D > 1])


def median_rows(X):
    return np.median(X[X[..., 0] > 0], axis=0)


def median_of_none(D):
    return np.median(D[D > 100])


_D = np.array([[0., 1, 4], [1, 0, 2.5], [4, 2.5, 0]])
_I = np.arange(24).reshape(2, 3, 4) % 7


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("f", [median_positive, percentiles_positive, quantile_above,
                               nanmedian_positive, nanmean_above, median_of_none])
def test_order_statistics_of_a_mask_of_several_axes(f):
    same_each(f, (_D,), (np.array([[np.nan, 2.], [3., 0.]]),))
    same(f, _I)
    same(f, _I.astype(np.float32))


def test_median_of_rows_selected_by_a_2d_mask():
    same(median_rows, _I)
    same(median_rows, _I.astype(np.float32))


def percentile_of_nothing(D):
    return np.percentile(D[D > 100], 50)  # <- here


def test_percentile_of_no_element_raises_numpys_index_error():
    raises_at(percentile_of_nothing, (_D,), tpucc.errors.RuntimeRaiseError,
              "index -1 is out of bounds", line_of="<- here", cache=False)


# --- list.append in every arm of a runtime `if` ------------------------------------------------

def predict(votes, k):
    preds = []
    for v in votes:
        if v * 2 > k:
            preds.append(1)
        else:
            preds.append(0)
    return preds


def distances_or_flag(x, c):
    out = [0.5]
    for v in x:
        if (d := abs(v - c)) < 1.0:
            out.append(d)
        else:
            out.append(-1.0)
    return out, len(out), sum(out)


def rows_or_extend(X):
    rows = []
    for i in range(len(X)):
        if X[i].sum() > 0:
            rows.append(X[i] * 2)
        else:
            rows.extend([X[i]])
    return np.stack(rows)


def three_arms(x):
    out = []
    for v in x:
        if v > 2:
            out.append(2)
        elif v > 0:
            out.append(1)
        else:
            out.append(0)
    return out


def two_items_each(x):
    pairs = []
    if x.sum() > 0:
        pairs.append(x[0])
        pairs.append(x[1])
    else:
        pairs.extend((x[1], x[0]))
    return pairs


def shared_list(x):
    a = []
    b = a
    if x.sum() > 0:
        a.append(x[0])
    else:
        b.append(x[1])
    return a, b, a is b


class Log:
    def __init__(self):
        self.items = []


def into_dict_and_object(x):
    log, hist = Log(), {"a": [], "b": []}
    for v in x:
        if v > 1:
            hist["a"].append(1)
            log.items.append(v * 2)
        else:
            hist["a"].append(0)
            log.items.append(v)
    return hist, log.items


def list_made_in_the_loop(x):
    total = 0.0
    while x.max() > 1:
        x = x / 2
        row = [x[0]]
        if x.sum() > 3:
            row.append(1.0)
        else:
            row.append(x[1])
        total = total + row[1]
    return total


def test_appends_in_every_arm_of_a_runtime_if():
    same_each(predict, (np.array([3, 1, 2]), 3), (np.array([0, 0, 9]), 3))
    same(predict, np.array([3., 1., 2.], np.float32), 3)
    same_each(distances_or_flag, (np.array([0.2, 3.0, 1.5]), 1.0), (np.array([5., 5., 5.]), 0.0))
    same(rows_or_extend, np.array([[1, 2], [-3, 1], [0, 0]]))
    same(three_arms, np.array([1, 3, -1]))
    same_each(two_items_each, (np.array([1, 2]),), (np.array([-1, -2]),))
    same(shared_list, np.array([1, 2]))
    same(into_dict_and_object, np.array([0.5, 2.0, -1.0]))
    same(list_made_in_the_loop, np.array([4., 8.]))


def appends_in_one_arm(votes, k):
    preds = []
    for v in votes:
        if v * 2 > k:
            preds.append(1)  # <- here
    return preds


def appends_two_and_one(x):
    out = []
    if x.sum() > 0:
        out.append(x[0])  # <- here
        out.append(x[1])
    else:
        out.append(x[0])
    return out


def appends_other_shapes(x):
    out = []
    if x[0] > 0:  # <- here
        out.append(x)
    else:
        out.append(x[:1])
    return out


def appends_after_a_runtime_break(x):
    out = []
    for r in x:
        if r[0] > 5.0:
            break
        out.append(r * 2)  # <- here
    return out


def test_arms_appending_other_numbers_of_items_are_refused():
    err = raises_at(appends_in_one_arm, (np.array([3, 1, 2]), 3), tpucc.errors.SideEffectError,
                    "appending to `preds` on some runtime paths only: the branches of this `if` "
                    "append 1 item and 0 items", line_of="<- here", cache=False)
    assert "out.append(a if c else b)" in err.hint
    raises_at(appends_two_and_one, (np.array([1, 2]),), tpucc.errors.SideEffectError,
              "append 2 items and 1 item to it", line_of="<- here", cache=False)
    raises_at(appends_after_a_runtime_break, (np.ones((3, 3)),), tpucc.errors.SideEffectError,
              "appending to `out` on some runtime paths only", line_of="<- here", cache=False)
    raises_at(appends_other_shapes, (np.ones(3),), tpucc.errors.MergeError,
              r"`out\[0\]` different shapes", line_of="<- here", cache=False)


def appends_in_a_runtime_loop(x):
    out = []
    while x.max() > 1:
        x = x / 2
        if x.sum() > 3:
            out.append(1)  # <- here
        else:
            out.append(0)
    return out


def test_appends_in_a_runtime_loop_stay_refused():
    raises_at(appends_in_a_runtime_loop, (np.array([4., 8.]),), tpucc.errors.SideEffectError,
              "mutating a container inside a runtime", line_of="<- here", cache=False)


# --- a Python int held as a NumPy integer, with a Python int it cannot hold ---------------------

def find(parent, x):
    while parent[x] != x:
        x = parent[x]
    return x


def root_plus_big(parent, k):
    return find(parent, k) + 1000  # <- here


def root_arithmetic(parent, k):
    r = find(parent, k)
    return 1000 - r, r + 5


def test_held_python_int_with_an_int_the_numpy_dtype_cannot_hold():
    # the loop does not run: `x` is still the Python int, and Python's sum is 1000
    same_each(root_plus_big, (np.array([0, 0, 1], np.uint8), 0),
              (np.array([1, 2, 2], np.uint8), 2))
    same_each(root_arithmetic, (np.array([1, 2, 2], np.uint8), 2),
              (np.array([0, 0, 1], np.int8), 0))
    # it ran: `x` is a uint8, and NumPy raises when the program runs (E910, not E700)
    raises_at(root_plus_big, (np.array([1, 2, 2], np.uint8), 0), tpucc.errors.RuntimeRaiseError,
              "Python integer 1000 out of bounds for uint8", line_of="<- here", cache=False)
