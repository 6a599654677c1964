"""Metrics, the profiler, log routing and plugin autoloading, seen from Python."""

import json
import logging
import os
import re
import subprocess
import sys
import threading

import pytest

ctorch = pytest.importorskip("ctorch")

PLUGIN_DIR = os.environ.get("CTORCH_TEST_PLUGIN_DIR", "")
needs_plugins = pytest.mark.skipif(not os.path.isdir(PLUGIN_DIR),
                                   reason="CTORCH_TEST_PLUGIN_DIR (tests/plugins in the build tree) is not set")

# ---- metrics ----

METRIC_NAMES = ["tensors.live", "storages.live", "memory.cpu.bytes_allocated", "memory.cpu.bytes_cached",
                "memory.cpu.allocations_live", "init.time_us", "plugins.loaded", "plugins.load_failures"]


def test_metrics_returns_every_metric_as_an_int():
    m = ctorch.metrics()
    assert set(METRIC_NAMES) <= set(m)
    assert all(isinstance(v, int) for v in m.values())
    assert m["init.time_us"] > 0  # import ran ct_init


def test_metric_follows_tensor_lifetime():
    before = ctorch.metric("tensors.live")
    t = ctorch.zeros(1000)
    assert ctorch.metric("tensors.live") == before + 1
    assert ctorch.metrics()["memory.cpu.allocations_live"] >= 1
    del t
    assert ctorch.metric("tensors.live") == before


def test_unknown_metric_is_invalid_argument_listing_the_names():
    with pytest.raises(ctorch.InvalidArgumentError, match="tensors.live"):
        ctorch.metric("tensors.alive")


# ---- profiler ----

def spans(prof, name):
    return [e for e in prof.events() if e["name"] == name]


def test_trace_has_names_shapes_dtypes_device_and_thread(tmp_path):
    a, b = ctorch.ones(2, 3), ctorch.ones(3, dtype=ctorch.float64)
    with ctorch.profiler.profile() as prof:
        a + b
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert trace["displayTimeUnit"] == "ns"
    (add,) = [e for e in trace["traceEvents"] if e["name"] == "add.Tensor"]
    assert add["ph"] == "X" and add["cat"] == "operator"
    assert add["args"] == {"input_shapes": [[2, 3], [3]], "input_dtypes": ["float32", "float64"], "device": "cpu"}
    assert add["pid"] == os.getpid()
    assert add["tid"] == threading.get_native_id()
    assert add["ts"] >= 0 and add["dur"] >= 0
    assert prof.events() == trace["traceEvents"]


def test_nested_spans_lie_within_their_parent():
    x, v = ctorch.ones(4, 5), ctorch.ones(5)
    with ctorch.profiler.profile() as prof:
        x @ v  # matmul is composite: unsqueeze, mm, squeeze inside it
    (outer,) = spans(prof, "matmul")
    (inner,) = spans(prof, "mm")
    assert inner["args"]["input_shapes"] == [[4, 5], [5, 1]]
    assert outer["ts"] <= inner["ts"]
    assert inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-3


def test_backward_operators_are_spans():
    w = ctorch.ones(3, requires_grad=True)
    loss = (w * w).sum()
    with ctorch.profiler.profile() as prof:
        loss.backward()
    assert spans(prof, "mul.Tensor")


def test_spans_from_another_thread_carry_its_tid():
    a = ctorch.ones(4)
    tids = []

    def work():
        tids.append(threading.get_native_id())
        for _ in range(3):
            -a

    with ctorch.profiler.profile() as prof:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    negs = spans(prof, "neg")
    assert len(negs) == 3
    assert {e["tid"] for e in negs} == set(tids)


def test_two_profilers_at_once_is_an_error():
    with ctorch.profiler.profile():
        with pytest.raises(ctorch.InvalidArgumentError, match="already running"):
            ctorch.profiler.profile().start()


def test_events_before_stop_is_an_error():
    prof = ctorch.profiler.profile()
    prof.start()
    try:
        with pytest.raises(RuntimeError, match="not stopped"):
            prof.events()
    finally:
        prof.stop()
    assert prof.events() == []


# ---- log routing ----

def test_library_info_messages_reach_the_ctorch_logger(caplog):
    ctorch.set_log_level("info")
    try:
        with caplog.at_level(logging.INFO, logger="ctorch"):
            with ctorch.profiler.profile():
                ctorch.ones(2) + 1
    finally:
        ctorch.set_log_level("warning")
    records = [r for r in caplog.records if r.name == "ctorch"]
    assert len(records) == 1 and re.fullmatch(r"profiler: stopped with \d+ operator spans", records[0].getMessage())
    assert records[0].levelno == logging.INFO


def test_messages_below_the_level_are_not_delivered(caplog):
    assert ctorch.get_log_level() == logging.WARNING
    with caplog.at_level(logging.DEBUG, logger="ctorch"):
        with ctorch.profiler.profile():
            pass
    assert not [r for r in caplog.records if r.name == "ctorch"]


def test_set_log_level_takes_names_and_logging_levels():
    try:
        ctorch.set_log_level(logging.DEBUG)
        assert ctorch.get_log_level() == logging.DEBUG
        ctorch.set_log_level("error")
        assert ctorch.get_log_level() == logging.ERROR
        with pytest.raises(ValueError, match="unknown level"):
            ctorch.set_log_level("loud")
    finally:
        ctorch.set_log_level("warning")


def test_warnings_become_user_warnings_at_the_callers_line():
    from ctorch import _logging

    with pytest.warns(UserWarning, match="nondeterministic") as record:
        _logging._route(ctorch._C.CT_LOG_WARNING, "index_add: nondeterministic on cuda")
    assert record[0].filename == __file__


def test_errors_go_to_the_logger_at_error_level(caplog):
    from ctorch import _logging

    with caplog.at_level(logging.DEBUG, logger="ctorch"):
        _logging._route(ctorch._C.CT_LOG_ERROR, "something failed")
        _logging._route(ctorch._C.CT_LOG_DEBUG, "detail")
    assert [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "ctorch"] == [
        (logging.ERROR, "something failed"), (logging.DEBUG, "detail")]


# ---- plugins (each in a fresh interpreter: autoloading happens once per process) ----

def run_python(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=120)


def test_a_library_warning_at_import_is_a_user_warning():
    code = ("import warnings\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    import ctorch\n"
            "print([(x.category.__name__, str(x.message)) for x in w])\n")
    r = run_python(code, CTORCH_BACKEND_PATH="/nonexistent-ctorch-plugins")
    assert r.returncode == 0, r.stderr
    assert "('UserWarning', \"CTORCH_BACKEND_PATH names '/nonexistent-ctorch-plugins', which cannot be read" in r.stdout
    assert "[ctorch warning]" not in r.stderr  # routed to Python, not printed by the library


@needs_plugins
def test_a_good_plugin_adds_its_operator():
    code = ("import ctorch\n"
            "print(ctorch.ops.call('testplug::twice', ctorch.tensor([1.0, 2.0])).tolist(), "
            "ctorch.metric('plugins.loaded'))\n")
    r = run_python(code, CTORCH_BACKEND_PATH=os.path.join(PLUGIN_DIR, "good"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[2.0, 4.0] 1"


@needs_plugins
def test_import_with_a_failing_plugin_raises_naming_it():
    code = ("import ctorch\n")
    r = run_python(code, CTORCH_BACKEND_PATH=os.path.join(PLUGIN_DIR, "bad_init"))
    assert r.returncode != 0
    assert "ctorch._errors.BackendError" in r.stderr
    assert "libtestplug_bad_init.so" in r.stderr
    assert "testplug_bad: no such device on this machine" in r.stderr
    assert "set CTORCH_DEVICE_BACKEND_AUTOLOAD=0 to start without plugins" in r.stderr


@needs_plugins
def test_autoload_off_imports_despite_a_failing_plugin():
    r = run_python("import ctorch; print(ctorch.metric('plugins.load_failures'))",
                   CTORCH_BACKEND_PATH=os.path.join(PLUGIN_DIR, "bad_init"), CTORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0"


# ---- loading order ----

def test_imports_after_torch():
    # PyTorch's libraries use up glibc's static TLS reserve; a library built with initial-exec TLS
    # then fails to load ("cannot allocate memory in static TLS block").
    r = run_python("import torch\nimport ctorch\nprint((ctorch.ones(2) + torch.ones(2).numpy()).tolist())\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[2.0, 2.0]"
