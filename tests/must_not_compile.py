#!/usr/bin/env python3
"""A source file that must not compile, with a message that says why.

    must_not_compile.py SOURCE EXPECTED_TEXT COMPILER [ARGS...]

Compiles SOURCE to an object file (the error attributes of the kit are checked when code is
generated, so -fsyntax-only would not do) and passes when the compiler fails and its output
contains EXPECTED_TEXT.
"""
import subprocess
import sys
import tempfile


def main():
    source, expected, *compiler = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [*compiler, "-c", source, "-o", f"{tmp}/out.o"]
        print("$", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    print(proc.stdout)
    if proc.returncode == 0:
        sys.exit(f"FAILED: {source} compiled; it must not")
    if expected not in proc.stdout:
        sys.exit(f"FAILED: the compiler's message does not say {expected!r}")
    print("ok: it does not compile, and says why")


if __name__ == "__main__":
    main()
