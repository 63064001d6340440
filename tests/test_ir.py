"""The staged API's views of a program: the typed IR (with why each input is
runtime and why each region exists) and the HLO structure of loops."""
import numpy as np

import tpucc
from conftest import check, count_hlo, hlo

W = np.arange(9.0).reshape(3, 3)


def uses_global_and_loop(x, n):
    for i in range(n):
        if x.sum() > 0:
            x = x @ W
    return x


def test_ir_explains_inputs_and_regions():
    text = tpucc.compile(uses_global_and_loop).lower(np.ones(3), np.int64(2)).ir()
    assert "argument x (array)" in text
    assert "global `W`" in text and "runtime input, not a constant" in text
    assert "# while:" in text and "# if: condition depends on a runtime value" in text
    loop_line = uses_global_and_loop.__code__.co_firstlineno + 1
    while_line = next(l for l in text.splitlines() if "= while(" in l)
    assert while_line.rstrip().endswith(f":{loop_line}"), while_line


def counted(x, n):
    for i in range(n):
        x = x * 0.5 + i
    return x


def test_runtime_range_loop_has_no_guard_conditional():
    # The range test lives in the While's condition: no Cond in the body.
    f = check(counted, np.ones(4), np.int64(5))
    text = hlo(f, np.ones(4), np.int64(5))
    assert count_hlo(text, "while") == 1 and count_hlo(text, "conditional") == 0


def long_static_loop(x):
    for i in range(1000):
        x = x * 0.999 + 0.001 * i
    return x


def test_long_static_loop_becomes_one_counted_while():
    f = check(long_static_loop, np.ones(3))
    lowered = f.lower(np.ones(3))
    assert count_hlo(lowered.as_text(), "while") == 1
    assert "counted loop: 1000 iterations exceed the unroll budget" in lowered.ir()


def short_static_loop(x):
    for i in range(4):
        x = x * 2 + i
    return x


def test_short_static_loop_is_unrolled():
    f = check(short_static_loop, np.ones(3))
    assert count_hlo(hlo(f, np.ones(3)), "while") == 0


def test_verifier_accepts_every_region():
    from tpucc.infer import trace
    from tpucc.ir import verify
    traced = trace(uses_global_and_loop, (np.ones(3), np.int64(3)), {}, {"unroll": 32})
    verify(traced.program)
