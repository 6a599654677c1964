"""ctorch.optim.optimizer: torch.optim.Optimizer, the base class a Python optimizer subclasses.

A subclass calls super().__init__(params, defaults) and writes step(); param_groups are plain
dicts and state a defaultdict(dict), as in torch, so ctorch's schedulers, state_dict() and
zero_grad() work on it unchanged. ctorch's own optimizers (SGD, Adam, ...) are subclasses whose
groups and state live in the C library."""

import collections as _collections
import copy as _copy

from .._tensor import Tensor

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """The default of an option every param group must give (torch's optimizer.required)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """torch.optim.Optimizer(params, defaults): params is an iterable of tensors or of dicts (one
    per parameter group, {"params": ..., option: value}); defaults fill each group's missing
    options."""

    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__name__}")
        self.defaults = dict(defaults)
        self.state = _collections.defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group: its options over the defaults, its parameters checked as torch checks them."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            raise ValueError("a parameter group holds the same tensor twice")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Sets each parameter's grad to None, or (set_to_none=False) to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    grad = p.grad
                    if grad.grad_fn is not None:  # a grad from create_graph: off its graph, same storage
                        grad = grad.detach()
                        p.grad = grad
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError(f"{type(self).__name__} must define step()")

    def state_dict(self):
        """torch's layout: {"state": {index: state}, "param_groups": [options with "params" as
        indices]}, indices counted across the groups in order."""
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads state_dict() of an optimizer over parameters of the same sizes: floating state
        tensors take each parameter's dtype and device (a "step" keeps its own), as in torch."""
        state_dict = _copy.deepcopy(state_dict)
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        by_index = {i: p for g, s in zip(self.param_groups, saved) for i, p in zip(s["params"], g["params"])}
        self.state = _collections.defaultdict(dict)
        for i, s in state_dict["state"].items():
            p = by_index.get(i)
            if p is None:
                continue
            self.state[p] = {k: (v.to(p.device, p.dtype) if k != "step" and isinstance(v, Tensor)
                                 and v.is_floating_point() else v) for k, v in s.items()}
        for group, s in zip(self.param_groups, saved):
            group.update({k: v for k, v in s.items() if k != "params"})

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"
