"""ctorch.nn.Module: the base class of every layer (torch.nn.Module).

Assigning a Parameter, a Module or (for a name given to register_buffer) a Tensor to an attribute
registers it; parameters(), buffers(), state_dict() and the rest walk what is registered, in
registration order, with torch's dotted names ("0.weight", "features.1.running_mean")."""

import collections
import collections.abc
import itertools

from ..._tensor import Tensor
from ...autograd import no_grad
from .. import init
from ..parameter import Parameter, UninitializedParameter

__all__ = ["Module"]

_IncompatibleKeys = collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    """Base class for layers and models: subclass it, assign submodules and Parameters in
    __init__ (after super().__init__()), and write forward()."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments, got {len(args)} positional "
                            f"and {sorted(kwargs)} keyword ones")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())
        # the ids of the hooks registered with a flag (dicts a handle can refer to weakly and remove from)
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", collections.OrderedDict())
        object.__setattr__(self, "_forward_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", collections.OrderedDict())
        object.__setattr__(self, "_forward_hooks_always_called", collections.OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if not (self.__dict__.get("_forward_pre_hooks") or self.__dict__.get("_forward_hooks")):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        """torch's order: each pre-hook may replace the arguments, forward runs, each hook may
        replace the result; hooks registered with always_call run even when forward raised."""
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        called = set()
        try:
            output = self.forward(*args, **kwargs)
            for hid, hook in list(self._forward_hooks.items()):
                called.add(hid)
                result = hook(self, args, kwargs, output) if hid in self._forward_hooks_with_kwargs else \
                    hook(self, args, output)
                if result is not None:
                    output = result
            return output
        except Exception:
            for hid, hook in list(self._forward_hooks.items()):
                if hid in self._forward_hooks_always_called and hid not in called:
                    try:
                        if hid in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:  # the forward's exception is the one to see, as in torch
                        pass
            raise

    # ---- hooks ----
    def _add_hook(self, hooks, hook, prepend, flag_sets=()):
        from ...utils.hooks import RemovableHandle

        handle = RemovableHandle(hooks, extra_dict=[d for d, on in flag_sets])
        hooks[handle.id] = hook
        for flags, on in flag_sets:
            if on:
                flags[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) before each forward call (hook(module, args, kwargs) with
        with_kwargs): returning something replaces the arguments."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend,
                              [(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) after each forward call (hook(module, args, kwargs, output)
        with with_kwargs): returning something replaces the output. always_call: also when forward
        raised (with output None)."""
        return self._add_hook(self._forward_hooks, hook, prepend, [(self._forward_hooks_with_kwargs, with_kwargs),
                                                                   (self._forward_hooks_always_called, always_call)])

    # ---- lookups by dotted name ----
    def get_submodule(self, target):
        """The module at target ("encoder.layers.0"); "" is self."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _attribute_at(self, target):
        """The submodule holding target's last name, and that name, which it must have."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    def get_parameter(self, target):
        """The Parameter at target ("layers.0.weight")."""
        mod, name = self._attribute_at(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at target ("bn.running_mean")."""
        mod, name = self._attribute_at(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ---- registration ----
    def _check_name(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f'{kind} name can\'t be empty or contain ".", got: {name!r}')

    def register_parameter(self, name, param):
        """Adds param (a Parameter, or None to reserve the name) under name."""
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(ctorch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Adds tensor (or None) as a buffer: state that is not a parameter (BatchNorm's running
        mean). persistent=False leaves it out of state_dict()."""
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Adds module (or None) as a child under name."""
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_name(name, "parameter")
            for k in ("_buffers", "_modules"):
                d[k].pop(name, None)
            d.pop(name, None)
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._check_name(name, "module")
            for k in ("_parameters", "_buffers"):
                d[k].pop(name, None)
            d.pop(name, None)
            self._modules[name] = value
        elif "_parameters" in d and name in d["_parameters"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(ctorch.nn.Parameter or None expected)")
            d["_parameters"][name] = None
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(ctorch.nn.Module or None expected)")
            d["_modules"][name] = None
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for k in ("_parameters", "_buffers", "_modules"):
            if k in d and name in d[k]:
                return d[k][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for k in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(k, ()):
                del self.__dict__[k][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    # ---- traversal ----
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module ("") and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, members, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, m in mods:
            for name, v in members(m):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield mod_prefix + ("." if mod_prefix else "") + name, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, Parameter) for every parameter, each shared one once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        """Calls fn on every submodule (children first), then on self; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients ----
    def train(self, mode=True):
        """Training mode (mode=True) or evaluation mode, for this module and every descendant."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clears every parameter's grad (set_to_none=False zeroes it in place instead)."""
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                init.zeros_(g)

    # ---- dtype and device ----
    def _apply(self, fn):
        """Replaces every parameter and buffer by fn(tensor) where that gives a different tensor."""
        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is None:
                    continue
                with no_grad():
                    new = fn(p)
                if new is p:
                    continue
                if isinstance(p, UninitializedParameter):  # a lazy module stays lazy, in the new dtype/device
                    m._parameters[name] = UninitializedParameter(p.requires_grad, new.device, new.dtype)
                    continue
                q = Parameter(new, p.requires_grad)
                if p.grad is not None:
                    with no_grad():
                        q.grad = fn(p.grad)
                m._parameters[name] = q
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(tensor): moves and casts the parameters and
        buffers (dtype changes floating ones only). Parameters that change are new Parameter
        objects, so create the optimizer after calling it."""
        from ... import device as _device

        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, (str, _device)):
                device = a
            else:
                dtype = a
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t):
            out = t if device is None else t.to(device)
            if dtype is not None and t.dtype.is_floating_point:
                out = out.to(dtype)
            return out

        return self._apply(convert)

    def float(self):
        from ... import float32

        return self.to(float32)

    def double(self):
        from ... import float64

        return self.to(float64)

    def half(self):
        from ... import float16

        return self.to(float16)

    def bfloat16(self):
        from ... import bfloat16

        return self.to(bfloat16)

    def type(self, dst_type):
        """Casts every parameter and buffer to dst_type (a dtype or a legacy type name)."""
        from ..._legacy import parse_type

        dtype, _ = parse_type(dst_type)
        return self._apply(lambda t: t.to(dtype))

    def to_empty(self, *, device, recurse=True):
        """Moves the parameters and buffers to device without copying their values (they are
        uninitialized there): for modules built on the meta device, before initializing them."""
        from ... import empty_like

        return self._apply(lambda t: empty_like(t, device=device))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else f"cuda:{device}" if isinstance(device, int) else device)

    # ---- state ----
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered dict of dotted name -> tensor: every parameter and persistent buffer,
        detached unless keep_vars (the tensors share the module's storage)."""
        if args:  # torch's deprecated positional form: (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = collections.OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies state_dict's tensors into the parameters and persistent buffers (under no-grad),
        converting dtype as copy_ does. strict: missing or unexpected keys raise RuntimeError, as do
        shape mismatches always. assign=True makes the loaded tensors the parameters instead.
        Returns (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
            elif tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {target.shape}.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        owners = {}
        for prefix, m in self.named_modules():
            for name in itertools.chain(m._parameters, m._buffers):
                owners[prefix + ("." if prefix else "") + name] = (m, name)
        with no_grad():
            for key, target in own.items():
                if key not in state_dict:
                    continue
                value = state_dict[key]
                m, name = owners[key]
                if assign and name in m._parameters:
                    m._parameters[name] = Parameter(value, target.requires_grad)
                elif assign:
                    m._buffers[name] = value
                else:
                    target.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

    # ---- printing ----
    def extra_repr(self):
        """The text inside this module's parentheses in repr (its constructor arguments)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = [line for line in self.extra_repr().split("\n") if line]
        for name, m in self._modules.items():
            text = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        if not lines:
            return self._get_name() + "()"
        if len(lines) == 1 and not self._modules:
            return f"{self._get_name()}({lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"
