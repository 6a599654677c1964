"""Makes VENV, a virtual environment over this interpreter's packages (--system-site-packages, so
torch stays visible) with the reference `safetensors` package from PyPI, for the interop tests in
bindings/python/tests/test_safetensors.py. CTest runs it once as the fixture python_safetensors_venv:

    python3 scripts/safetensors_venv.py build/venv-safetensors

Idempotent: an existing venv that imports safetensors is kept. It always exits 0, so the Python
tests still run when the package cannot be installed (offline): the reason is written to
VENV/UNAVAILABLE.txt and the interop tests skip with it.
"""
import os
import shutil
import subprocess
import sys


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def works(venv):
    py = venv_python(venv)
    return os.path.exists(py) and subprocess.run([py, "-c", "import safetensors.torch"], capture_output=True).returncode == 0


def main(venv):
    marker = os.path.join(venv, "UNAVAILABLE.txt")
    if works(venv):
        if os.path.exists(marker):
            os.remove(marker)
        print(f"safetensors_venv: {venv} is ready")
        return
    shutil.rmtree(venv, ignore_errors=True)
    steps = [[sys.executable, "-m", "venv", "--system-site-packages", venv],
             [venv_python(venv), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "safetensors"]]
    for step in steps:
        try:
            r = subprocess.run(step, capture_output=True, text=True, timeout=540)
            failed, why = r.returncode != 0, (r.stderr or r.stdout).strip()[-2000:]
        except (OSError, subprocess.TimeoutExpired) as e:
            failed, why = True, str(e)
        if failed:
            os.makedirs(venv, exist_ok=True)
            with open(marker, "w") as f:
                f.write(f"`{' '.join(step)}` failed: {why}\n")
            print(f"safetensors_venv: the safetensors package is unavailable; interop tests will skip:\n{why}")
            return
    print(f"safetensors_venv: made {venv}")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
