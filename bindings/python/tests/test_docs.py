"""Every ```python block of docs/python.md runs as written: each block is a whole program, run in
its own interpreter in a fresh directory (one writes a file), and must exit cleanly."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "python.md"


def blocks():
    text = DOC.read_text(encoding="utf-8")
    found = []
    for m in re.finditer(r"```python\n(.*?)```", text, re.S):
        found.append(pytest.param(m.group(1), id=f"line{text.count(chr(10), 0, m.start()) + 1}"))
    return found


def test_the_guide_has_examples():
    assert len(blocks()) >= 5, f"{DOC}: expected its python examples"


@pytest.mark.parametrize("code", blocks())
def test_block_runs(code, tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)  # the ctorch this suite tests
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, f"{DOC} block failed:\n{code}\n--- stderr ---\n{r.stderr}"
