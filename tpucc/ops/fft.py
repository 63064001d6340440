"""np.fft: fft ifft rfft irfft hfft ihfft, their 2-d and n-d forms,
fftshift ifftshift fftfreq rfftfreq.

One op, `fft`, is a 1-d transform along one axis (kind fft / ifft / rfft /
irfft, length n); everything else is built from it at compile time exactly
as NumPy's pocketfft wrapper builds it: the n-d transforms are 1-d
transforms axis after axis (the last axis first, repeated axes allowed),
hfft is irfft of the conjugate with the norm swapped, ihfft the conjugate of
rfft with the norm swapped.  The input is cut or zero-padded to n along the
axis, as NumPy does.

Dtypes (NumPy 2): complex results are np.result_type(a.dtype, 1j) (float16,
float32 and complex64 give complex64; integers, bools and float64 give
complex128); irfft's real result is np.result_type(a.real.dtype, 1.0)
(float16 stays float16, computed in float32).  The normalization factor
(1/n or 1/sqrt(n) for norm "forward", "ortho" or the inverse's "backward")
is computed in that real dtype, as NumPy computes it.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import DTypeError, StaticValueError, UnsupportedError, UserCodeError
from ..ir import AVal
from .manipulation import as_array
from .registry import NUMPY, implements, normalize_axis, register, static_index

_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}
_FORWARD = {"fft": True, "rfft": True, "ifft": False, "irfft": False}


def _emit(*a, **k):
    return emit(*a, **k)


def _real_dtype(dt: np.dtype) -> np.dtype:
    """np.result_type(a.real.dtype, 1.0)."""
    real = np.finfo(dt).dtype if dt.kind == "c" else dt
    return np.result_type(real, 1.0)


def _out_dtype(kind, dt: np.dtype) -> np.dtype:
    if kind == "irfft":
        return _real_dtype(dt)
    if kind == "rfft" and dt.kind == "c":
        raise _complex_refused("rfft", dt)
    return np.result_type(dt, 1j)


# The transforms of real input, and the one each user would call for complex input.
_COMPLEX_TWIN = {"rfft": "fft", "ihfft": "ifft", "rfftn": "fftn", "rfft2": "fft2"}


def _complex_refused(name: str, dt: np.dtype) -> DTypeError:
    """NumPy's TypeError for complex input to a real transform, naming the
    function the user called (ihfft and rfftn are made of rfft)."""
    return DTypeError(f"np.fft.{name}: ufunc '{name}' not supported for the input type {dt} "
                      f"({name}'s input is real)",
                      hint=f"use np.fft.{_COMPLEX_TWIN[name]} for complex input")


def _real_input(name: str, a):
    a = as_array(a)
    if a.dtype.kind == "c":
        raise _complex_refused(name, a.dtype)
    return a


def _fft_abstract(avals, kind, n, axis, norm):
    a, = avals
    if a.dtype.kind not in "biufc":
        raise DTypeError(f"np.fft of {a.dtype} arrays is not supported")
    shape = list(a.shape)
    shape[axis] = n // 2 + 1 if kind == "rfft" else n
    return AVal(_out_dtype(kind, a.dtype), tuple(shape), False)


def _factor(kind, n, norm, dt: np.dtype):
    """NumPy's `fct`, in the real dtype of the transform's input."""
    if not _FORWARD[kind]:
        norm = _SWAP[norm]
    real = _real_dtype(dt)
    if norm in (None, "backward"):
        return None
    if norm == "ortho":
        return np.reciprocal(np.sqrt(n, dtype=real))
    return np.reciprocal(n, dtype=real)


def _fft_lower(lc, x, kind, n, axis, norm):
    out = lc.out_avals[0].dtype
    single = np.dtype(out) in (np.dtype(np.float16), np.dtype(np.float32),
                               np.dtype(np.complex64))
    cdt = np.dtype(np.complex64 if single else np.complex128)
    rdt = np.finfo(cdt).dtype
    if kind == "fft":
        y = jnp.fft.fft(lax.convert_element_type(x, cdt), n, axis, norm="backward")
    elif kind == "ifft":
        y = jnp.fft.ifft(lax.convert_element_type(x, cdt), n, axis, norm="forward")
    elif kind == "rfft":
        y = jnp.fft.rfft(lax.convert_element_type(x, rdt), n, axis, norm="backward")
    else:
        y = jnp.fft.irfft(lax.convert_element_type(x, cdt), n, axis, norm="forward")
    fct = _factor(kind, n, norm, lc.in_avals[0].dtype)
    if fct is not None:
        y = y * np.asarray(fct, rdt)
    return lax.convert_element_type(y, out)


register("fft", _fft_abstract, _fft_lower,
         numpy=lambda a, kind, n, axis, norm: getattr(np.fft, kind)(a, n, axis, norm))


def _check_norm(norm):
    if norm not in _SWAP:
        raise UserCodeError(f'ValueError: Invalid norm value {norm}; should be "backward", '
                            '"ortho" or "forward".')


def _no_out(out):
    if out is not None:
        raise UnsupportedError("np.fft's out= is not supported", hint="assign the result")


def transform(kind, a, n, axis, norm):
    """One 1-d transform, NumPy's _raw_fft."""
    a = as_array(a)
    _check_norm(norm)
    axis = normalize_axis(axis, a.ndim)
    if n is None:
        n = a.shape[axis]
        if kind == "irfft":
            n = (n - 1) * 2
    n = static_index(n)
    if n < 1:
        raise UserCodeError(f"ValueError: Invalid number of FFT data points ({n}) specified.")
    return _emit("fft", a, kind=kind, n=n, axis=axis, norm=norm)


@implements(np.fft.fft)
def fft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out)
    return transform("fft", a, n, axis, norm)


@implements(np.fft.ifft)
def ifft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out)
    return transform("ifft", a, n, axis, norm)


@implements(np.fft.rfft)
def rfft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out)
    return transform("rfft", _real_input("rfft", a), n, axis, norm)


@implements(np.fft.irfft)
def irfft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out)
    return transform("irfft", a, n, axis, norm)


def _conj(x):
    return emit_ufunc("conjugate", x)


@implements(np.fft.hfft)
def hfft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out)
    a = as_array(a)
    _check_norm(norm)
    if n is None:
        n = (a.shape[normalize_axis(axis, a.ndim)] - 1) * 2
    return transform("irfft", _conj(a), n, axis, _SWAP[norm])


@implements(np.fft.ihfft)
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out)
    _check_norm(norm)
    return _conj(transform("rfft", _real_input("ihfft", a), n, axis, _SWAP[norm]))


# --- n-d transforms ------------------------------------------------------------------------

def _cook_nd_args(a, s, axes, invreal=False):
    """NumPy's: the lengths and axes of the transforms."""
    shapeless = s is None
    if s is None:
        s = list(a.shape) if axes is None else [a.shape[normalize_axis(x, a.ndim)]
                                                for x in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            raise UnsupportedError(
                "np.fft: `s` without `axes` is deprecated in NumPy 2.0 (its meaning will "
                "change)", hint="pass axes as well, e.g. axes=[0, ..., k-1]")
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise UserCodeError("ValueError: Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a.shape[normalize_axis(axes[-1], a.ndim)] - 1) * 2
    if any(x is None for x in s):
        raise UnsupportedError("np.fft: None in `s` is deprecated in NumPy 2.0",
                               hint="pass the length (-1: the input's)")
    s = [a.shape[normalize_axis(x, a.ndim)] if static_index(n) == -1 else n
         for n, x in zip(s, axes)]
    return s, axes


def _nd(kind, a, s, axes, norm, out):
    _no_out(out)
    a = as_array(a)
    s, axes = _cook_nd_args(a, s, axes)
    for n, axis in reversed(list(zip(s, axes))):
        a = transform(kind, a, n, axis, norm)
    return a


def _rfftn(name, a, s, axes, norm, out):
    _no_out(out)
    a = _real_input(name, a)
    s, axes = _cook_nd_args(a, s, axes)
    if not axes:
        raise UserCodeError("IndexError: list index out of range")
    a = transform("rfft", a, s[-1], axes[-1], norm)
    for ii in range(len(axes) - 2, -1, -1):
        a = transform("fft", a, s[ii], axes[ii], norm)
    return a


def _irfftn(a, s, axes, norm, out):
    _no_out(out)
    a = as_array(a)
    s, axes = _cook_nd_args(a, s, axes, invreal=True)
    if not axes:
        raise UserCodeError("IndexError: list index out of range")
    for ii in range(len(axes) - 1):
        a = transform("ifft", a, s[ii], axes[ii], norm)
    return transform("irfft", a, s[-1], axes[-1], norm)


@implements(np.fft.fftn)
def fftn(a, s=None, axes=None, norm=None, out=None):
    return _nd("fft", a, s, axes, norm, out)


@implements(np.fft.ifftn)
def ifftn(a, s=None, axes=None, norm=None, out=None):
    return _nd("ifft", a, s, axes, norm, out)


@implements(np.fft.fft2)
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _nd("fft", a, s, axes, norm, out)


@implements(np.fft.ifft2)
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _nd("ifft", a, s, axes, norm, out)


@implements(np.fft.rfftn)
def rfftn(a, s=None, axes=None, norm=None, out=None):
    return _rfftn("rfftn", a, s, axes, norm, out)


@implements(np.fft.rfft2)
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _rfftn("rfft2", a, s, axes, norm, out)


@implements(np.fft.irfftn)
def irfftn(a, s=None, axes=None, norm=None, out=None):
    return _irfftn(a, s, axes, norm, out)


@implements(np.fft.irfft2)
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _irfftn(a, s, axes, norm, out)


# --- shifts and frequencies ----------------------------------------------------------------

def _shift(x, axes, sign):
    x = as_array(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (dim // 2) for dim in x.shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x.shape[axes] // 2)
    else:
        shift = [sign * (x.shape[ax] // 2) for ax in axes]
    if axes == ():
        return NUMPY[np.copy](x)
    return NUMPY[np.roll](x, shift, axes)


@implements(np.fft.fftshift)
def fftshift(x, axes=None):
    return _shift(x, axes, 1)


@implements(np.fft.ifftshift)
def ifftshift(x, axes=None):
    return _shift(x, axes, -1)


def _frequencies(n, d, rfft):
    """With a runtime spacing d (n is static: it is the result's length)."""
    if isinstance(n, Array):
        raise StaticValueError("np.fft.fftfreq's n is the length of its result: it must be "
                               "known at compile time")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise UserCodeError("ValueError: n should be an integer")
    if rfft:
        results = np.arange(0, n // 2 + 1, dtype=int)
    else:
        results = np.empty(n, int)
        N = (n - 1) // 2 + 1
        results[:N] = np.arange(0, N, dtype=int)
        results[N:] = np.arange(-(n // 2), 0, dtype=int)
    return (1.0 / (n * d)) * as_array(results)


@implements(np.fft.fftfreq)
def fftfreq(n, d=1.0, device=None):
    return _frequencies(n, d, False)


@implements(np.fft.rfftfreq)
def rfftfreq(n, d=1.0, device=None):
    return _frequencies(n, d, True)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array  # noqa: E402
from .elementwise import emit_ufunc  # noqa: E402
