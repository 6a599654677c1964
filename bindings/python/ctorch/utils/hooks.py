"""ctorch.utils.hooks: RemovableHandle, what registering a module hook returns (torch.utils.hooks)."""

import itertools
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Removes the hook it was returned for from its dict(s) of hooks: handle.remove(), or the end
    of a `with` block. Keeps the dicts by weak reference, so it does not keep a module alive."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict] if extra_dict is not None else []
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
