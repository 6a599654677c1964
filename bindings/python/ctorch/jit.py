"""ctorch.jit: the parts of torch.jit that code meets without scripting: is_scripting() and
is_tracing() are False, and the decorators that mark code for the TorchScript compiler (ignore,
unused, export) return what they decorate. ctorch has no TorchScript: script and trace raise,
pointing to ctorch.compile and ctorch.export, which compile and export Python functions."""

import typing as _typing

__all__ = ["is_scripting", "is_tracing", "ignore", "unused", "export", "Final", "annotate", "script", "trace"]

Final = _typing.Final


def is_scripting():
    return False


def is_tracing():
    return False


def _marker(fn=None, **_kwargs):
    # @ignore and @ignore(drop=True) alike: the function runs as Python, which it always does here.
    if fn is None:
        return lambda f: f
    return fn


ignore = _marker
unused = _marker


def export(fn):
    return fn


def annotate(the_type, the_value):
    return the_value


def script(obj, *args, **kwargs):
    raise NotImplementedError("ctorch.jit.script: ctorch has no TorchScript. Compile a function with "
                              "ctorch.compile(fn), or save a program with ctorch.export.export")


def trace(func, *args, **kwargs):
    raise NotImplementedError("ctorch.jit.trace: ctorch has no TorchScript. Compile a function with "
                              "ctorch.compile(fn), or save a program with ctorch.export.export")
