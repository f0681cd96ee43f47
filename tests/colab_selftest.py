#!/usr/bin/env python3
"""docs/colab.ipynb's code cells, run in order as Colab runs them, but without Jupyter: on this
checkout and its build folder instead of a fresh clone (the notebook reads LABKIT_NOTEBOOK_CHECKOUT
and LABKIT_NOTEBOOK_BUILD_DIR, which this sets), on this machine's CPU or GPU.

    colab_selftest.py [--build-dir build] [--notebook docs/colab.ipynb]

A line `!COMMAND` runs COMMAND through bash, with `{expression}` replaced by its value as IPython
does, and must exit 0; `%cd DIR` changes the folder; every other line is Python, run in one
namespace for the whole notebook. IPython.display is replaced by a stand-in that records what the
cells show.

Checks: the notebook is nbformat 4 JSON with no stored outputs; its code cells use no magic but
`%cd`; every cell runs; the grade wrote the student's and the reference's reports and the cells
showed their tables and at least one picture. Without a CUDA device no GPU variant of either
report reads `pass` (only `pass (emulated)`, `not run`, `TODO` or `skipped`), and the student's
were emulated; with one, none reads `pass (emulated)` and every one of the reference's that ran
passes. The lab's files in results/ that the notebook rewrites are put back as they were.
Skipped (77) when a lab's starter files are edited: the grade then checks that work, not the kit.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
import types
from pathlib import Path

sys.dont_write_bytecode = True
KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT / "tests"))
sys.path.insert(0, str(KIT / "cli"))
from starter_guard import edited  # noqa: E402
from labkit.steps import family  # noqa: E402

SKIP = 77  # Meson's "skipped"
# A cell line that is not Python: IPython's shell escape and its line magics.
ESCAPE_RE = re.compile(r"^(\s*)([!%])(.*)$")
# GPU statuses (cli/labkit/reports.py's keys) allowed without a CUDA device: never a GPU's pass.
NO_DEVICE_GPU = {"pass-emulated", "not-run", "todo", "skipped"}


class CellError(Exception):
    pass


def expand(text, namespace):
    """IPython's `{expression}` in a shell escape or a magic's argument."""
    return re.sub(r"\{([^{}]+)\}", lambda m: str(eval(m.group(1), namespace)), text)


def shell(namespace):
    def run(command):
        command = expand(command, namespace)
        print(f"$ {command}", flush=True)
        code = subprocess.run(["bash", "-c", command]).returncode
        if code != 0:
            raise CellError(f"`{command}` exited with status {code}")
    return run


def change_dir(namespace):
    def cd(folder):
        folder = expand(folder, namespace)
        os.chdir(folder)
        print(os.getcwd(), flush=True)
    return cd


def as_python(source):
    """A code cell's source with its `!` and `%cd` lines turned into calls."""
    lines = []
    for line in source.splitlines():
        m = ESCAPE_RE.match(line)
        if not m:
            lines.append(line)
            continue
        indent, kind, rest = m.groups()
        if kind == "!":
            lines.append(f"{indent}__notebook_shell({rest.strip()!r})")
        elif rest.startswith("cd "):
            lines.append(f"{indent}__notebook_cd({rest[3:].strip()!r})")
        else:
            raise CellError(f"%{rest.split()[0] if rest.split() else ''} is a magic this test cannot run (only "
                            f"!COMMAND and %cd DIR); Colab would run it, CI would not")
    return "\n".join(lines) + "\n"


def display_stand_in(shown):
    """IPython.display's Markdown, Image and display, recording what is shown in `shown`."""
    module = types.ModuleType("IPython.display")

    class Markdown:
        def __init__(self, data):
            self.data = data

    class Image:
        def __init__(self, data=None, filename=None, **_):
            self.filename = filename or data

    def display(*objects):
        for obj in objects:
            shown.append(obj)
            what = f"image {obj.filename}" if isinstance(obj, Image) else f"markdown, {len(obj.data.splitlines())} lines"
            print(f"[display: {what}]", flush=True)

    module.Markdown, module.Image, module.display = Markdown, Image, display
    package = types.ModuleType("IPython")
    package.display = module
    sys.modules["IPython"], sys.modules["IPython.display"] = package, module
    return Markdown, Image


def code_cells(path):
    """The notebook's code cells' sources, after checking its format."""
    try:
        nb = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise CellError(f"{path}: not a readable JSON notebook ({e})")
    if nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        raise CellError(f"{path}: not an nbformat 4 notebook")
    sources = []
    for i, cell in enumerate(nb["cells"], 1):
        if cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise CellError(f"{path}: cell {i} has no valid cell_type")
        if cell["cell_type"] != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            raise CellError(f"{path}: cell {i} has stored outputs: clear them before committing "
                            f"(Edit → Clear all outputs)")
        src = cell.get("source", "")
        sources.append((i, "".join(src) if isinstance(src, list) else src))
    return sources


def run_notebook(path, build_dir, shown):
    namespace = {"__name__": "__main__"}
    namespace["__notebook_shell"] = shell(namespace)
    namespace["__notebook_cd"] = change_dir(namespace)
    os.environ["LABKIT_NOTEBOOK_CHECKOUT"] = str(KIT)
    os.environ["LABKIT_NOTEBOOK_BUILD_DIR"] = str(build_dir)
    for number, source in code_cells(path):
        print(f"\n=== cell {number}", flush=True)
        start = time.monotonic()
        try:
            exec(compile(as_python(source), f"<cell {number}>", "exec"), namespace)
        except CellError as e:
            raise CellError(f"cell {number}: {e}")
        except Exception as e:
            where = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == f"<cell {number}>"]
            line = f", line {where[-1].lineno}" if where else ""
            raise CellError(f"cell {number}{line}: {type(e).__name__}: {e}")
        print(f"=== cell {number}: {time.monotonic() - start:.1f} s", flush=True)
    return namespace


def check_reports(lab, shown, markdown_type, image_type):
    """The problems of the grade's reports and of what the cells showed."""
    problems = []
    reports = {}
    for label in ("student", "solution"):
        path = KIT / "results" / f"{lab}-{label}.json"
        try:
            reports[label] = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            problems.append(f"{path.relative_to(KIT)}: not written by the notebook's grade ({e})")
    # The reference is timed where it is compared (cli/labkit/reference_cache.py): each step the
    # student's report timed, the kit's own rows (the same code in both builds) left out.
    own = {v["name"] for v in reports.get("student", {}).get("variants", []) if v.get("reference")}
    timed = {p.get("variant") for p in reports.get("student", {}).get("performance", [])} - own
    if "student" in reports and "solution" not in reports and not timed:
        problems = []  # a starter: nothing to compare, so no reference report
        reports["solution"] = {}
    if problems:
        return problems
    device = reports["student"].get("environment", {}).get("gpu")
    for label, report in reports.items():
        for v in report.get("variants", []):
            if v.get("kind") != "gpu":
                continue
            status, name = v.get("status"), f"{label} {v.get('name')}"
            if not device and status not in NO_DEVICE_GPU:
                problems.append(f"{name}: '{status}' without a CUDA device (expected one of {sorted(NO_DEVICE_GPU)})")
            if device and status == "pass-emulated":
                problems.append(f"{name}: emulated although this machine has a CUDA device")
            if device and label == "solution" and status not in ("pass", "skipped"):
                problems.append(f"{name}: the reference reads '{status}' on {device}")
    if not device and not reports["student"].get("environment", {}).get("gpu_emulated"):
        problems.append("student: its GPU variants were not emulated (grade --quick without a CUDA device emulates)")
    if not device:  # emulated --quick: each kernel in one configuration
        gpu_rows = [v["name"] for v in reports["student"].get("variants", []) if v.get("kind") == "gpu"]
        families = [family(n) for n in gpu_rows]
        if len(families) != len(set(families)):
            problems.append(f"student: --quick emulated several configurations of a kernel: {gpu_rows}")
    untimed = sorted(timed - {p.get("variant") for p in reports["solution"].get("performance", [])})
    if untimed:
        problems.append(f"the reference has no timing of rows the student's report timed: {untimed}")
    tables = [s.data for s in shown if isinstance(s, markdown_type)]
    for label in [l for l in ("student", "solution") if reports[l]]:
        if not any(f"# {lab} ({label})" in t and "| variant |" in t for t in tables):
            problems.append(f"the cells did not show results/{lab}-{label}.md")
    pictures = [s.filename for s in shown if isinstance(s, image_type)]
    if not pictures:
        problems.append("the cells showed no picture")
    for p in pictures:
        if not Path(p).is_file() or Path(p).read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            problems.append(f"{p}: shown, but not a PNG file")
    return problems


def keep(results):
    """What the notebook may rewrite in results/, to put back afterwards: the files directly in it
    (the lab's reports), diff/ (the grade's diff images) and colab/ (the pictures cell's)."""
    if not results.is_dir():
        return None
    files = {p: p.read_bytes() for p in results.iterdir() if p.is_file()}
    trees = {d: {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} for d in (results / "diff", results / "colab")
             if d.is_dir()}
    return files, trees


def put_back(results, kept):
    if kept is None:  # there was no results/ before
        shutil.rmtree(results, ignore_errors=True)
        return
    files, trees = kept
    for p in results.iterdir():
        if p.is_file() and p not in files:
            p.unlink()
    for p, data in files.items():
        if not p.is_file() or p.read_bytes() != data:
            p.write_bytes(data)
    for d in (results / "diff", results / "colab"):
        shutil.rmtree(d, ignore_errors=True)
        for p, data in trees.get(d, {}).items():
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build", help="the configured build folder (default: build)")
    ap.add_argument("--notebook", default=str(KIT / "docs" / "colab.ipynb"), help="default: docs/colab.ipynb")
    args = ap.parse_args()
    build_dir = Path(args.build_dir).resolve()
    for manifest in sorted(KIT.glob("labs/*/kit/tests/starter.sha256")):
        changed = edited(manifest, manifest.parents[2])
        if changed:
            print(f"skipped: the notebook grades a lab's starter as shipped, and "
                  f"{manifest.parents[2].relative_to(KIT)}/ has edited files: {', '.join(changed)}")
            return SKIP

    results = KIT / "results"
    kept = keep(results)
    shown = []
    markdown_type, image_type = display_stand_in(shown)
    here = os.getcwd()
    start = time.monotonic()
    try:
        namespace = run_notebook(Path(args.notebook), build_dir, shown)
        problems = check_reports(namespace.get("LAB", "?"), shown, markdown_type, image_type)
    except CellError as e:
        problems = [str(e)]
    finally:
        os.chdir(here)
        put_back(results, kept)
    for p in problems:
        print(f"FAIL: {p}")
    print(f"\nthe notebook's cells: {time.monotonic() - start:.0f} s; {'FAIL' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
