#!/usr/bin/env python3
"""doc_programs.py - runs the Java of docs/java.md, so the page and the binding cannot drift.

    doc_programs.py snippets --doc docs/java.md --jar build/bindings/java/ctorch.jar   # CTest java.docs
    doc_programs.py consumer --doc docs/java.md --build-dir build                      # CTest java.consumer

snippets: every ```java block is compiled against ctorch.jar and run, each in a fresh directory, by
the convention docs/java.md states under "About the code on this page": a block declaring a class
compiles as is; any other block is a fragment, put in the main method of a class of its own after
its own imports and those of org.ctorch, org.ctorch.nn and org.ctorch.optim; the HTML comment
`<!-- java setup: ... -->` just before a block holds the statements the fragment assumes.

consumer: the section of docs/java.md between `<!-- consumer:begin -->` and `<!-- consumer:end -->`
is what a newcomer does, and is done as written in a temporary directory outside the tree: its
```sh blocks run in one bash script (HOME is a temporary directory; `build` is this build tree),
its ```java block is the file named by the `<!-- consumer:file NAME -->` before it, and the
program prints the lines of its ```text block. The installed JNI library's RUNPATH must not name
the build tree.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

# A fenced block and the HTML comment on the lines just before it (which holds no fence).
BLOCK = re.compile(r"(?:^<!--\s*(?P<note>(?:(?!-->|```).)*?)\s*-->\s*\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```\s*$",
                   re.S | re.M)
CLASS = re.compile(r"^(?:public\s+)?(?:final\s+)?class\s+(\w+)", re.M)
FRAGMENT_IMPORTS = ["org.ctorch.*", "org.ctorch.nn.*", "org.ctorch.optim.*"]
TIMEOUT = 300


def blocks(text):
    """(line, lang, note, body) of every fenced block, in page order."""
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("body"))
        yield line, m.group("lang"), (m.group("note") or ""), m.group("body")


def program(body, note, index):
    """(class name, source) of a block, by the page's convention."""
    declared = CLASS.search(body)
    if declared:
        return declared.group(1), body
    setup = note[len("java setup:"):].strip() if note.startswith("java setup:") else ""
    imports, code = [], []
    for line in body.splitlines():
        (imports if line.startswith("import ") and not code else code).append(line)
    name = f"Snippet{index}"
    have = {i.strip() for i in imports}
    head = imports + [f"import {i};" for i in FRAGMENT_IMPORTS if f"import {i};" not in have]
    main = [f"public class {name} {{", "  public static void main(String[] mainArgs) throws Exception {"]
    main += ["    " + l for l in setup.splitlines()] + ["    " + l for l in code] + ["  }", "}"]
    return name, "\n".join(head + [""] + main) + "\n"


def run(cmd, cwd, what, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        raise SystemExit(f"{what}: `{' '.join(cmd)}` exited with {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def snippets(args):
    text = pathlib.Path(args.doc).read_text()
    found = [(line, note, body) for line, lang, note, body in blocks(text) if lang == "java"]
    if not found:
        raise SystemExit(f"{args.doc}: no ```java blocks")
    failed = []
    for index, (line, note, body) in enumerate(found, 1):
        where = f"{args.doc}:{line + 1}"
        name, source = program(body, note, index)
        with tempfile.TemporaryDirectory(prefix="ctorch-java-doc-") as d:
            pathlib.Path(d, name + ".java").write_text(source)
            try:
                run([args.javac, "-encoding", "UTF-8", "-cp", args.jar, name + ".java"], d, where + " (compile)")
                run([args.java, "-cp", f"{args.jar}{os.pathsep}.", name], d, where + " (run)")
                print(f"ok   {where} ({name})")
            except SystemExit as e:
                print(f"FAIL {e}\n--- as compiled:\n{source}")
                failed.append(where)
    print(f"{len(found) - len(failed)} of {len(found)} Java blocks of {args.doc} compiled and ran")
    return 1 if failed else 0


def consumer(args):
    text = pathlib.Path(args.doc).read_text()
    m = re.search(r"<!--\s*consumer:begin\s*-->(.*?)<!--\s*consumer:end\s*-->", text, re.S)
    if not m:
        raise SystemExit(f"{args.doc}: no section between <!-- consumer:begin --> and <!-- consumer:end -->")
    script, files, expected = [], {}, None
    for _, lang, note, body in blocks(m.group(1)):
        if lang == "sh":
            script.append(body)
        elif lang == "java":
            named = re.match(r"consumer:file\s+(\S+)", note)
            if not named:
                raise SystemExit(f"{args.doc}: a consumer ```java block needs <!-- consumer:file NAME --> before it")
            files[named.group(1)] = body
        elif lang == "text":
            expected = body
    if not script or not files or expected is None:
        raise SystemExit(f"{args.doc}: the consumer section needs ```sh blocks, a ```java file and its ```text output")
    with tempfile.TemporaryDirectory(prefix="ctorch-java-consumer-") as d:
        root = pathlib.Path(d)
        home, src, project = root / "home", root / "ctorch", root / "project"
        for p in (home, src, project):
            p.mkdir()
        # The steps start in the ctorch checkout, whose build directory is this build tree.
        (src / "build").symlink_to(pathlib.Path(args.build_dir).resolve())
        for name, body in files.items():
            (project / name).write_text(body)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LD_", "JAVA_TOOL", "CLASSPATH"))}
        env["HOME"] = str(home)
        # The first block installs from the checkout; the others run in the new project.
        steps = [f"cd {src}", script[0], f"cd {project}"] + script[1:]
        out = run(["bash", "-euo", "pipefail", "-c", "\n".join(steps)], project, "the documented steps", env)
        jni = list(home.rglob("libctorch_jni.so"))
        if len(jni) != 1:
            raise SystemExit(f"the documented install put {len(jni)} libctorch_jni.so under {home}")
        dynamic = run([args.readelf, "-d", str(jni[0])], project, "readelf")
        build = str(pathlib.Path(args.build_dir).resolve())
        runpath = [l for l in dynamic.splitlines() if "RPATH" in l or "RUNPATH" in l]
        if any(build in l for l in runpath) or not any("$ORIGIN" in l for l in runpath):
            raise SystemExit(f"the installed {jni[0].name} must find libctorch through $ORIGIN only: {runpath}")
        # The install step prints what it installs; the program's lines come last.
        if out.splitlines()[-len(expected.splitlines()):] != expected.splitlines():
            raise SystemExit(f"the program printed:\n{out}\ndocs/java.md says it prints:\n{expected}")
        print(out, end="")
        print(f"the consumer project of {args.doc} built and ran from {jni[0].parent}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("snippets")
    s.add_argument("--doc", required=True)
    s.add_argument("--jar", required=True)
    s.add_argument("--javac", default=shutil.which("javac"))
    s.add_argument("--java", default=shutil.which("java"))
    c = sub.add_parser("consumer")
    c.add_argument("--doc", required=True)
    c.add_argument("--build-dir", required=True)
    c.add_argument("--readelf", default=shutil.which("readelf"))
    args = p.parse_args(argv)
    if args.command == "snippets":
        args.jar = str(pathlib.Path(args.jar).resolve())
    return snippets(args) if args.command == "snippets" else consumer(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
