"""The rust.consumer test: a newcomer's first project, made the way docs/rust.md says and nothing more.

Takes the blocks between the consumer-project markers of docs/rust.md, in order: each ```sh block
is run in a shell (the first one creates the project and enters it), the ```toml block is added to
the project's [dependencies] with /path/to/ctorch replaced by this checkout, the ```rust block
becomes src/main.rs. It runs in a fresh temporary directory outside the repository, with none of
the build's environment (no CTORCH_DIR, CARGO_TARGET_DIR or LD_LIBRARY_PATH), then runs the built
program again directly, as a user would, and checks what it printed.

    python3 bindings/rust/consumer_project.py [--keep]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(REPO, "docs", "rust.md")
EXPECTED = [r"^trained: loss [0-9.]+ -> [0-9.]+, \d+/256 right$", r"^reloaded: same outputs true$",
            r"^compiled: tensor\(\[", r"^exported: same outputs true$", r"^refused: CT_ERROR_SHAPE: .*\[3, 5\]"]


def blocks():
    text = open(DOC, encoding="utf-8").read()
    m = re.search(r"<!-- consumer-project[^>]*-->(.*?)<!-- /consumer-project -->", text, re.S)
    if not m:
        sys.exit(f"{DOC}: no consumer-project section")
    # An info string may carry rustdoc's attributes ("rust,no_run"): the language is its first word.
    return [(info.split(",")[0], body) for info, body in re.findall(r"```([\w,]+)\n(.*?)```", m.group(1), re.S)]


def run(cmd, cwd, env):
    print(f"$ {cmd}   (in {cwd})", flush=True)
    r = subprocess.run(cmd, shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout, flush=True)
    if r.returncode != 0:
        sys.exit(f"failed with status {r.returncode}: {cmd}")
    return r.stdout


def check_output(out):
    lines = out.splitlines()
    for pattern in EXPECTED:
        if not any(re.search(pattern, line) for line in lines):
            sys.exit(f"the program's output has no line matching {pattern!r}")
    m = re.search(r"loss ([0-9.]+) -> ([0-9.]+)", out)
    if not float(m.group(2)) < float(m.group(1)) / 2:
        sys.exit(f"training did not lower the loss: {m.group(0)}")


def main():
    env = {k: v for k, v in os.environ.items()
           if k not in ("CTORCH_DIR", "CARGO_TARGET_DIR", "LD_LIBRARY_PATH", "RUSTFLAGS", "RUSTDOCFLAGS")}
    # A build outside the checkout's build/ is found the documented way for that case.
    if os.environ.get("CTORCH_CONSUMER_LIBDIR"):
        env["CTORCH_DIR"] = os.environ["CTORCH_CONSUMER_LIBDIR"]
    root = tempfile.mkdtemp(prefix="ctorch-rust-consumer-")
    try:
        cwd = root
        for lang, body in blocks():
            if lang == "sh":
                for cmd in body.strip().splitlines():
                    # `cd` moves this script, as it would move the newcomer's shell.
                    parts = [p.strip() for p in cmd.split("&&")]
                    for part in parts:
                        if part.startswith("cd "):
                            cwd = os.path.join(cwd, part[3:].strip())
                        else:
                            out = run(part, cwd, env)
            elif lang == "toml":
                manifest = os.path.join(cwd, "Cargo.toml")
                text = open(manifest).read()
                line = body.strip().replace("/path/to/ctorch", REPO)
                if "[dependencies]" not in text:
                    sys.exit(f"{manifest} has no [dependencies] table")
                open(manifest, "w").write(text.replace("[dependencies]", "[dependencies]\n" + line, 1))
            elif lang == "rust":
                open(os.path.join(cwd, "src", "main.rs"), "w").write(body)
            else:
                sys.exit(f"consumer-project section: unexpected ```{lang} block")
        check_output(out)  # the last command of the section runs the program
        # Again without cargo: the binary runs by itself, with no library path set.
        binary = os.path.join(cwd, "target", "debug", os.path.basename(cwd))
        check_output(run(binary, cwd, env))
        print("rust.consumer: the documented first project builds and runs")
    finally:
        if "--keep" in sys.argv:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
