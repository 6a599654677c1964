"""ctorch.profiler: operator spans as a Chrome trace, like torch.profiler.

    with ctorch.profiler.profile() as prof:
        y = (x @ w).relu().sum()
    prof.export_chrome_trace("trace.json")   # open in Perfetto (ui.perfetto.dev) or chrome://tracing
    prof.events()                            # the spans as dicts

Every operator call on every thread is a span with its name ("add.Tensor"), ts and dur in
microseconds, pid and tid (the native thread id, threading.get_native_id()) and args: input_shapes,
input_dtypes and device. Calls made inside another operator (composite operators, backward) lie
within their caller's span. Shapes are always recorded. One profiler runs at a time per process.
"""

import json

from . import _C

__all__ = ["profile"]


class profile:
    """Records operator spans between start() and stop(), or inside a `with` block."""

    def __init__(self):
        self._trace = None

    def start(self):
        _C.ct_profiler_start()
        self._trace = None

    def stop(self):
        self._trace = _C.ct_profiler_stop_to_string()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _text(self, what):
        if self._trace is None:
            raise RuntimeError(f"profile.{what}: the profiler has not stopped yet; leave the `with` block or call stop()")
        return self._trace

    def export_chrome_trace(self, path):
        """Writes the trace (Chrome trace JSON) to path."""
        with open(path, "w") as f:
            f.write(self._text("export_chrome_trace"))

    def events(self):
        """The spans, as the dicts of the trace's "traceEvents", sorted by start time."""
        return json.loads(self._text("events"))["traceEvents"]
