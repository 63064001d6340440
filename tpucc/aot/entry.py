"""`@entry(...)`: declares a function of a model file as an entry point that
`tpucc build` compiles into an artifact.  The function itself is returned
unchanged (the model file still runs eagerly); the declaration is attached to
it and found by `find_entries(module)`.  A bound method (`entry(...)(model.
forward)`: `self` is a captured object, its arrays weights) cannot hold an
attribute: its declaration is kept beside it, for as long as it lives."""
from __future__ import annotations

import re
import sys
import types
import weakref
from dataclasses import dataclass, field

from ..errors import Loc
from . import spec as specs
from .errors import BuildError

ATTR = "__tpucc_entry__"
# Declarations of callables that cannot hold ATTR (bound methods), by the
# callable: `model.forward == model.forward`, one bound method or another.
_DECLARED_BESIDE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass
class EntryPoint:
    name: str
    fn: object
    specs: tuple                      # one spec per positional argument
    kwspecs: dict                     # keyword argument -> spec
    loc: Loc | None
    options: dict = field(default_factory=dict)

    def examples(self):
        """(args, kwargs) of example values; kwargs sorted by name, the order
        in which their runtime leaves become inputs."""
        names = _param_names(self.fn)
        args = tuple(specs.example(s, names[i] if i < len(names) else f"argument {i}",
                                   self.name, self.loc)
                     for i, s in enumerate(self.specs))
        kwargs = {k: specs.example(self.kwspecs[k], k, self.name, self.loc)
                  for k in sorted(self.kwspecs)}
        return args, kwargs


def entry(*arg_specs, name: str | None = None, runtime_args=(), unroll: int | None = None,
          matmul_precision: str | None = None, **kwspecs):
    """Declares the decorated function an ahead-of-time entry point.

        @entry("f32[8,3,224,224]")
        def forward(images): ...

        @entry(init_params, "f32[8,4]", name="predict_batch8")
        def predict(params, x): ...

        @entry(init_params, "f32[8,4]", 0.5, runtime_args=("lr",))
        def step(params, x, lr): ...      # lr: any float at run time

    Each positional spec describes one positional argument, each keyword spec
    one keyword argument (see tpucc.aot.spec for the grammar).  runtime_args,
    unroll and matmul_precision are tpucc.compile's options: a Python scalar
    spec of an argument named in runtime_args is an example value, and the
    loaded artifact takes any scalar of its type there.  Malformed specs and
    options are reported here, at the decorator's line."""
    frame = sys._getframe(1)
    loc = Loc(frame.f_code.co_filename, frame.f_lineno, 0, frame.f_code.co_name)
    if len(arg_specs) == 1 and callable(arg_specs[0]) and _looks_decorated(arg_specs[0]):
        raise BuildError("@entry needs parentheses and the argument specs: "
                         "@entry(\"f32[8,4]\", ...)", loc)
    if name is not None:
        _check_name(name, loc)
    options = _options(runtime_args, unroll, matmul_precision, loc)

    def declare(fn):
        ep = EntryPoint(fn.__name__ if name is None else name, fn, arg_specs, dict(kwspecs),
                        loc, options)
        try:
            _check_specs(ep)
        except BuildError:
            _refuse_method_of_class_body(fn, ep)    # (specs after `self` do not fit it)
            raise
        _check_runtime_args(ep)
        _attach(fn, ep)
        return fn
    return declare


def _attach(fn, ep: EntryPoint):
    """Adds `ep` to fn's declarations: one function may be declared several
    entries (two batch sizes, each its own name)."""
    try:
        setattr(fn, ATTR, declared(fn) + (ep,))
        return
    except (AttributeError, TypeError):     # a bound method, a builtin
        pass
    try:
        _DECLARED_BESIDE[fn] = declared(fn) + (ep,)
    except TypeError:                       # neither weakly referable nor hashable
        raise BuildError(f"@entry: {type(fn).__name__} {fn!r:.60} cannot be declared an "
                         "entry", ep.loc,
                         hint="declare a function of the model file (def f(x): "
                              "return g(x)) calling it") from None


def declared(value) -> tuple:
    """The entry points declared on `value`, in the order declared."""
    if not callable(value):
        return ()
    if isinstance(value, types.MethodType):
        # (not getattr: a bound method reads its function's attributes, and
        # an @entry in the class body is not a declaration of this method)
        eps = _DECLARED_BESIDE.get(value, ())
    else:
        eps = getattr(value, ATTR, ())
    return eps if type(eps) is tuple and all(isinstance(e, EntryPoint) for e in eps) else ()


def _options(runtime_args, unroll, matmul_precision, loc) -> dict:
    """tpucc.compile options of an entry, checked (as tpucc.compile checks
    them) at the decorator."""
    from ..api import checked_options
    from ..errors import OptionError
    given = {"runtime_args": runtime_args, "unroll": unroll,
             "matmul_precision": matmul_precision}
    try:
        options = checked_options({k: v for k, v in given.items()
                                   if v is not None and (k != "runtime_args" or v != ())})
    except OptionError as e:
        raise BuildError(e.message.replace("tpucc.compile: ", "@entry: "), loc,
                         hint=e.hint) from None
    if "runtime_args" in options:
        options["runtime_args"] = tuple(options["runtime_args"])
    return options


def _check_runtime_args(ep: EntryPoint):
    """A name in runtime_args must be an argument the entry has a spec for."""
    given = _param_names(ep.fn)[:len(ep.specs)] + list(ep.kwspecs)
    for n in ep.options.get("runtime_args", ()):
        if n not in given:
            raise BuildError(f"entry {ep.name!r}: runtime_args names {n!r}, which is not "
                             "an argument with a spec", ep.loc,
                             hint="the arguments with specs are: " +
                                  (", ".join(given) or "none"))


def _looks_decorated(x) -> bool:
    """`@entry` without parentheses passes the function itself as a spec."""
    import inspect
    try:
        params = inspect.signature(x).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in params)


def _check_specs(ep: EntryPoint):
    """Parses every spec string now, so a typo fails at the decorator."""
    def walk(s, path):
        if isinstance(s, str):
            try:
                specs.parse(s)
            except ValueError as e:
                raise BuildError(f"entry {ep.name!r}: the spec {s!r} of {path} is "
                                 f"malformed: {e}", ep.loc, hint=specs.GRAMMAR) from None
        elif isinstance(s, (tuple, list)):
            for i, v in enumerate(s):
                walk(v, f"{path}[{i}]")
        elif isinstance(s, dict):
            for k, v in s.items():
                walk(v, f"{path}[{k!r}]")
    names = _param_names(ep.fn)
    for i, s in enumerate(ep.specs):
        walk(s, names[i] if i < len(names) else f"argument {i}")
    for k, s in ep.kwspecs.items():
        walk(s, k)
    _check_signature(ep)
    _check_name(ep.name, ep.loc)


# An artifact is the directory <name>.tpucc: a file name on every system.
MAX_NAME_LENGTH = 200


def _check_name(name, loc):
    """An entry's name (given, or the function's) names its artifact."""
    hint = "use letters, digits, '_', '-' and '.' (not first)"
    if not isinstance(name, str):
        raise BuildError(f"@entry: name must be a string, not {type(name).__name__} "
                         f"({name!r})", loc, hint=hint)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name.startswith(".") \
            or len(name) > MAX_NAME_LENGTH:
        raise BuildError(f"entry name {name!r} cannot name an artifact directory", loc,
                         hint=hint + f", at most {MAX_NAME_LENGTH} of them")


def _check_signature(ep: EntryPoint):
    """The specs must fit the function's parameters, as a call would."""
    import inspect
    try:
        signature = inspect.signature(ep.fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*ep.specs, **ep.kwspecs)
    except TypeError as e:
        raise BuildError(f"entry {ep.name!r}: the specs do not fit {ep.fn.__name__}"
                         f"{signature}: {e}", ep.loc,
                         hint="give one spec per parameter, positional or by keyword") from None


def _param_names(fn):
    import inspect
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def find_entries(module) -> list[EntryPoint]:
    """The entry points declared in a module, in definition order."""
    found, seen = [], {}
    declarations = [ep for v in list(vars(module).values()) for ep in declared(v)]
    for ep in declarations + _class_body_entries(module):
        if id(ep) not in {id(e) for e in found}:
            if ep.name in seen:
                raise BuildError(f"two entries are named {ep.name!r}", ep.loc,
                                 hint=f"the other is at {seen[ep.name]}; pass name=...")
            seen[ep.name] = ep.loc
            found.append(ep)
    return found


def _refuse_method_of_class_body(fn, ep: EntryPoint):
    """@entry on a function of a class body whose first parameter is `self`:
    the method error (_class_body_entries), not a spec one."""
    scopes = getattr(fn, "__qualname__", "").split(".")
    if len(scopes) >= 2 and scopes[-2] != "<locals>" and _param_names(fn)[:1] == ["self"]:
        raise _method_entry_error(".".join(scopes[:-1]), scopes[-1], ep)


def _method_entry_error(owner: str, attr: str, ep: EntryPoint) -> BuildError:
    return BuildError(
        f"@entry on the method {owner}.{attr}: an entry is a function of the model file or a "
        "method bound to an instance", ep.loc,
        hint=f"declare it at module level on an instance: {attr} = entry("
             f"<the specs after self>, name={ep.name!r})(<instance>.{attr})")


def _class_body_entries(module) -> list:
    """Entries declared in the class bodies of the module: a static method
    is a function and builds; @entry on a method declares a function of
    `self`, which an artifact cannot take (an object holding arrays is no
    input), so it is refused, pointing at the form that builds: the method
    bound to an instance, whose arrays are then the entry's weights."""
    found = []
    todo = [v for v in vars(module).values() if _defined_in(v, module)]
    seen = {id(c) for c in todo}
    while todo:
        cls = todo.pop()
        for attr, value in vars(cls).items():
            if _defined_in(value, module) and id(value) not in seen:
                seen.add(id(value))
                todo.append(value)
            function = value.__func__ if isinstance(value, (classmethod, staticmethod)) \
                else value
            for ep in declared(value) or declared(function):    # (either decorator outermost)
                if not isinstance(value, staticmethod):
                    raise _method_entry_error(cls.__qualname__, attr, ep)
                found.append(ep)
    return found


def _defined_in(value, module) -> bool:
    return isinstance(value, type) and value.__module__ == module.__name__
