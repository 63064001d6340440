"""The README's example, compiled and eager."""
import numpy as np

from conftest import check, count_hlo, hlo


def collatz_steps(x):
    steps = 0
    while x.max() > 1:
        x = np.where(x == 1, 1, np.where(x % 2 == 0, x // 2, 3 * x + 1))
        steps += 1
    return x, steps


def test_readme_example():
    f = check(collatz_steps, np.array([6, 7, 27]))
    assert f(np.array([6, 7, 27]))[1] == 111
    assert count_hlo(hlo(f, np.array([6, 7, 27])), "while") == 1
