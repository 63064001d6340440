"""Bugs of sweeps 36d and 36h, fixed in session 36e: @entry on a named tuple
of specs, on a bound method (and a clear E800 for one in a class body); a
re-sealed manifest whose inputs are not the program's is refused at load;
np.linalg.lstsq's rank check only where the residuals are read; reshape /
ravel / flatten in Fortran order, and arrays laid out in it
(np.asarray(order='F'), np.asfortranarray)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import tpucc
from tpucc import aot
from tpucc import errors as E

from conftest import build_model_source, check, raises_at


# --- @entry: named tuple specs, bound methods, methods in a class body ------------------

MODEL = '''
import collections
import numpy as np
from tpucc.aot import entry

P = collections.namedtuple("P", "w b")


@entry(P("f32[2]", "f32[]"))
def nt_spec(p):
    return p.w + p.b


class MLP:
    def __init__(self):
        self.w = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)

    def forward(self, x):
        return np.tanh(x @ self.w)

    @staticmethod
    @entry("f32[3]")
    def doubled(x):
        return x * 2


model = MLP()
predict = entry("f32[3,4]", name="predict")(model.forward)
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out, model = build_model_source(tmp_path_factory, "model36e", MODEL)
    import importlib.util
    spec = importlib.util.spec_from_file_location("model36e_eager", model)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return out, module


def test_entry_spec_may_be_a_named_tuple(built):
    out, m = built
    f = aot.load(str(out / "nt_spec.tpucc"))
    p = m.P(np.array([1, 2], np.float32), np.float32(3))
    np.testing.assert_array_equal(f(p), m.nt_spec(p))


def test_entry_of_a_bound_method_builds_with_self_captured(built):
    out, m = built
    f = aot.load(str(out / "predict.tpucc"))
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    np.testing.assert_allclose(f(x), m.model.forward(x), rtol=1e-6)
    assert m.predict(x).shape == (3, 2)         # the model file still runs eagerly


def test_entry_on_a_static_method_builds(built):
    out, m = built
    np.testing.assert_array_equal(aot.load(str(out / "doubled.tpucc"))(np.ones(3, np.float32)),
                                  m.MLP.doubled(np.ones(3, np.float32)))


IN_CLASS_BODY = '''
import numpy as np
from tpucc.aot import entry


class Net:
    def __init__(self):
        self.w = np.full((4, 2), 0.5, np.float32)

    @entry(lambda: Net(), "f32[3,4]", name="net_forward")
    def forward(self, x):
        return np.tanh(x @ self.w)
'''


def test_entry_on_a_method_in_a_class_body_is_refused_at_the_decorator(tmp_path):
    model = tmp_path / "net.py"
    model.write_text(IN_CLASS_BODY)
    with pytest.raises(aot.BuildError, match="@entry on the method Net.forward") as info:
        aot.build_file(str(model), str(tmp_path))
    err = info.value
    assert err.loc.line == 10 and "forward = entry(" in err.hint
    # the hint's form builds
    model.write_text(IN_CLASS_BODY.replace('    @entry(lambda: Net(), "f32[3,4]", name="net_forward")\n', "")
                     + 'forward = entry("f32[3,4]", name="net_forward")(Net().forward)\n')
    aot.build_file(str(model), str(tmp_path))
    x = np.ones((3, 4), np.float32)
    np.testing.assert_allclose(aot.load(str(tmp_path / "net_forward.tpucc"))(x),
                               np.tanh(x @ np.full((4, 2), 0.5, np.float32)), rtol=1e-6)


# --- a re-sealed manifest whose inputs are not the program's ------------------------------

@pytest.mark.parametrize("prefer", ["executable", "stablehlo"])
def test_resealed_manifest_with_other_input_shapes_is_refused_at_load(built, tmp_path, prefer):
    import shutil
    out, _ = built
    art = tmp_path / "nt_spec.tpucc"
    shutil.copytree(out / "nt_spec.tpucc", art)
    m = json.loads((art / "manifest.json").read_text())
    m["inputs"]["flat"][0]["shape"] = [5]
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    with pytest.raises(aot.ArtifactError, match=r"its input p\.w is f32\[5\]; its "
                                                r"\S+ takes f32\[2\]"):
        aot.load(str(art), prefer=prefer)


# --- lstsq: the rank check only where the residuals are read ------------------------------

RANK_ONE = np.outer([1.0, 2, 3, 4], [1.0, -1, 2])


def lstsq_solution(a, b):
    return np.linalg.lstsq(a, b, rcond=None)[0]


def lstsq_without_residuals(a, b):
    x, _, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return x, rank, s


def lstsq_solutions_in_a_loop(a, b, n):
    x = np.zeros(a.shape[1])
    for i in range(n):
        x = x + np.linalg.lstsq(a * (i + 1), b, rcond=None)[0]
    return x


def lstsq_residual_count(a, b):
    r = np.linalg.lstsq(a, b, rcond=None)
    return r[0] if r[1].size else -r[0]


def test_lstsq_solution_of_a_rank_deficient_matrix_is_numpys():
    b = np.arange(4.0)
    check(lstsq_solution, RANK_ONE, b)
    check(lstsq_without_residuals, RANK_ONE, b)
    check(lstsq_solutions_in_a_loop, RANK_ONE, b, 3, compile_kwargs={"runtime_args": ("n",)})


def test_lstsq_residuals_read_still_check_the_rank():
    b = np.arange(4.0)
    raises_at(lambda a, b: np.linalg.lstsq(a, b, rcond=None)[1], (RANK_ONE, b), ValueError,
              match="rank < 3")
    # a static fact of the residuals (their size) is a read too
    raises_at(lstsq_residual_count, (RANK_ONE, b), ValueError, match="rank < 3",
              line_of="np.linalg.lstsq")
    check(lstsq_residual_count, RANK_ONE + np.eye(4, 3), b)


# --- order='F' --------------------------------------------------------------------------

X = np.arange(24.0).reshape(2, 3, 4)


def test_reshape_ravel_flatten_in_fortran_order():
    check(lambda x: (x.reshape(4, 6, order="F"), np.reshape(x, (6, -1), order="F"),
                     x.ravel("F"), np.ravel(x, order="F"), x.flatten("F"),
                     x.reshape(3, 8, order="f")), X)
    check(lambda x: (x.T.ravel("A"), x.T.reshape(24, order="A"), x.T.ravel("K"),
                     x[:, ::2].ravel("A")), X)


def written_through_fortran_views(v, m):
    r = v.reshape(2, 3, order="F")      # a view of a 1-d array, as NumPy's
    r[0, 1] = -1.0
    c = m.reshape(3, 2, order="F")      # a copy
    c[0, 0] = -2.0
    t = m.T.ravel("F")                  # a view: m.T is F-contiguous
    t[1] = -3.0
    return v, m, r, c, t


def test_fortran_order_views_are_numpys():
    check(written_through_fortran_views, np.arange(6.0), np.arange(6.0).reshape(2, 3))


def test_order_k_of_a_strided_array_is_refused_and_the_hint_works():
    raises_at(lambda x: x[:, ::2].transpose(1, 0, 2).ravel("K"), (X,), E.UnsupportedError,
              match="neither C- nor F-contiguous", line_of="ravel")
    check(lambda x: (x[:, ::2].transpose(1, 0, 2).ravel("C"),
                     x[:, ::2].transpose(1, 0, 2).ravel("F")), X)
    raises_at(lambda x: x.reshape(24, order="K"), (X,), E.UserCodeError,
              match="order 'K' is not permitted for reshaping")


def fortran_arrays(x):
    a = np.asarray(x, order="F")
    a[0, 0] = -1.0                      # a copy of the C-contiguous x
    return (a + 1, np.array(x, order="F").ravel("K"), np.asfortranarray(x).ravel("K"),
            x.astype(np.float32, order="F").ravel("K"), x.copy(order="F").ravel("K"),
            np.ascontiguousarray(np.asfortranarray(x)).ravel("K"), x)


def same_array_when_laid_out(v, m):
    np.asarray(v, order="F")[0] = 5.0          # 1-d: v itself
    np.asarray(m.T, order="F")[0, 0] = 7.0     # m.T is F-contiguous: a view of m
    return v, m


def test_arrays_in_fortran_order():
    x = np.arange(6.0).reshape(2, 3)
    check(fortran_arrays, x)
    check(same_array_when_laid_out, np.arange(3.0), x.copy())
    raises_at(lambda x: np.asarray(x, order="X"), (x,), E.UserCodeError,
              match="order must be one of")
