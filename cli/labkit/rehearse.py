"""`labkit rehearse [LAB...]`: a class rehearsal. It makes a class of submissions from the kit's own
material (the solution whole and in part, the labs' broken kernels and cheats, the corpus's hostile
entries, issue 48's attacks), each with what a grader must give it (tests/rehearsal.toml, the
manifest), grades it with `./labkit grade-all` as an instructor would (timing on, `--sanitize
racecheck` where there is a GPU, `--jobs N`), and reports per submission the expected and the actual
points and verdicts, where the time went, how long the GPU sat idle, and how stable the performance
points are between two gradings of the same submission. Exit status 1 on any mismatch.

Layout of --out (default results/rehearsal/), kept between calls so that a rehearsal cut short (a
10-minute GPU call) resumes where it stopped, grade-all skipping what it already graded:
  manifest.json        the entries rehearsed, resolved: how each was made, what it must get
  rehearsal.md, .json  the report
  <lab>/class/         the class: one folder or archive per submission, remade only when its recipe
                       or the kit files it is made from change (<lab>/made.json holds their keys)
  <lab>/graded/        grade-all's --out (results/<name>.json, the gradebook, feedback, ...)
  <lab>/calls.json     [start, end] of each grade-all call: the wall time the GPU idle time is of
  <lab>/grade-all.log  grade-all's output"""

import fnmatch
import hashlib
import io
import json
import os
import runpy
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .build import build_dir_of, open_build
from .programs import machine_gpu
from .proc import stream
from .quiet import split_cores
from .rubric import NOISY
from .submissions import shown_name
from .util import ROOT, LabkitError, UsageError, kit_path, markdown_table, print_table, rel, say, write_atomic
from .verdicts import BUILD_ERROR, ERROR, NOT_RUN, SKIPPED, TODO

TESTS = ROOT / "tests"
MANIFEST = TESTS / "rehearsal.toml"
DEFAULT_OUT = "results/rehearsal"
# The rehearsal needs what the student tarball leaves out (dist.KIT_ONLY).
KIT_MATERIAL = ("solutions", "tests/corpus")
SANITIZER = "racecheck"  # the hazards the labs' races are: shared memory read before it is written
# --quick: the grader's quick sizes (and one timing per variant), plus the two large cases the
# kit's bugs need: 3000x3000 for a 32-bit sum to pass 2^31, 4097x2049 for a few thousand blocks
# (a chain of single-pass blocks, a race across many blocks).
QUICK_SIZES = "quick,3000x3000,4097x2049"
# --quick times one thread count, the timing side's cores (quiet.split_cores), where a team that
# ignores the count it is given gains nothing and is not always told apart (the readings:
# docs/instructor.md, "Rehearse a class"); given this count too, it keeps several busy.
QUICK_LEAST_THREADS = 1
# Two gradings of the same submission agree on each group's performance points within this share
# of the group's performance points.
STABILITY_SHARE = 0.10
SHARE_SLACK = 1e-6  # points are rounded to 0.01: a share of exactly hi may come out a hair above
PARTS = ("cpu", "gpu", "both")
POINT_PARTS = ("cpu", "gpu", "bonus")
# Verdicts that a GPU variant gets without its kernels running: checked on a machine without a
# GPU too (a build error, a starter's TODO, a dry run's ERROR); any other needs a GPU.
NO_KERNEL_VERDICTS = {TODO, BUILD_ERROR, ERROR, NOT_RUN, SKIPPED}
# Corpus conditions (tests/corpus/README.md) that only timing can show.
TIMING_CONDITIONS = {"flagged", "noted", "timing_vs_honest_min"}

MAKE_KEYS = {"files", "corpus", "bug", "replace", "append", "misfile", "flood", "layout"}
EXPECT_KEYS = {"points", "verdicts", "sanitizer", "notes_have", "costs_at_most_s", "twin"}
ENTRY_KEYS = MAKE_KEYS | EXPECT_KEYS | {"name", "lab", "about", "part", "sample"}
LAYOUTS = ("folder", "flat", "zip", "tar.gz", "corrupt-zip", "broken-tar", "odd-name", "deep")
ANY = "any:"  # a verdict that one matching variant is enough for: "any: fail|timeout"
OK, NOT, NOT_GRADED = "ok", "NOT", "not graded"
# A result's spans (batch.SPANS): "build", then per lab one per phase that held the GPU, named by
# grade-all (correctness "check", "timing", "sanitize"); read as they come, so that a phase added
# there is counted here. The sanitizer's is told apart: a hung kernel's cost is in the others.
BUILD_SPAN, SANITIZE_SPAN = "build", "sanitize"


# ---- the manifest -------------------------------------------------------------------------------

def kit_tools():
    """tests/corpus_selftest.py (how a corpus entry is staged, and how its verdicts are judged) and
    tests/attacks.py (issue 48's attacks): their one home, which the rehearsal shares with the
    corpus and class tests."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import attacks  # noqa: E402
    import corpus_selftest  # noqa: E402
    return corpus_selftest, attacks


def parse_verdicts(verdicts, where, statuses):
    """The manifest's {glob: "status|..."} as corpus expect items ({variants, match, status})."""
    items = []
    for glob, text in (verdicts or {}).items():
        match = "any" if text.startswith(ANY) else "all"
        wanted = [s.strip() for s in text.removeprefix(ANY).split("|")]
        bad = [s for s in wanted if s not in statuses]
        if bad:
            raise UsageError(f"{where}: verdicts: {', '.join(bad)} is no verdict "
                             f"(they are {', '.join(sorted(statuses))})")
        items.append({"variants": glob, "match": match, "status": wanted})
    return items


def validate(entry, where, labs, statuses):
    """Typos in the manifest must stop the rehearsal, not check nothing."""
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        raise UsageError(f"{where}: unknown keys {', '.join(sorted(unknown))} (see the top of {rel(MANIFEST)})")
    for key in ("name", "lab", "about"):
        if key not in entry:
            raise UsageError(f"{where}: no '{key}'")
    if entry["lab"] not in labs:
        raise UsageError(f"{where}: no lab {entry['lab']} in solutions/")
    if entry.get("layout", "folder") not in LAYOUTS:
        raise UsageError(f"{where}: layout must be one of {', '.join(LAYOUTS)}")
    if entry.get("part", "cpu") not in PARTS:
        raise UsageError(f"{where}: part must be one of {', '.join(PARTS)}")
    for part, bounds in entry.get("points", {}).items():
        if part not in POINT_PARTS or len(bounds) != 2 or not 0 <= bounds[0] <= bounds[1] <= 1:
            raise UsageError(f"{where}: points: {part} = [lo, hi], shares from 0 to 1, of {', '.join(POINT_PARTS)}")
    parse_verdicts(entry.get("verdicts"), where, statuses)


def load_manifest(path, statuses):
    """The manifest's entries, checked."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise UsageError(f"{path}: cannot be read ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: not valid TOML ({e})") from None
    entries = data.get("entry", [])
    labs = {p.name for p in (ROOT / "solutions").iterdir() if p.is_dir()}
    names = set()
    for i, e in enumerate(entries):
        where = f"{rel(path)} entry {i + 1} ({e.get('name', 'no name')})"
        validate(e, where, labs, statuses)
        if e["name"] in names:
            raise UsageError(f"{where}: a second entry of that name")
        names.add(e["name"])
    for e in entries:
        if e.get("twin") and e["twin"] not in names:
            raise UsageError(f"{rel(path)}: {e['name']}'s twin {e['twin']} is no entry")
    return entries


def select(entries, args):
    """The entries of the labs asked for, of the part asked for, of --sample, at most --limit per lab."""
    labs = args.labs or list(dict.fromkeys(e["lab"] for e in entries))
    unknown = [l for l in labs if l not in {e["lab"] for e in entries}]
    if unknown:
        raise UsageError(f"no entry of lab {', '.join(unknown)} in {rel(args.manifest_path)}")
    parts = {"cpu", "both"} if args.cpu_only else {"gpu", "both"} if args.gpu_only else set(PARTS)
    chosen = {}
    for e in entries:
        if e["lab"] in labs and e.get("part", "cpu") in parts and (e.get("sample") or not args.sample):
            chosen.setdefault(e["lab"], []).append(e)
    if args.limit:
        chosen = {lab: es[:args.limit] for lab, es in chosen.items()}
    if not chosen:
        raise UsageError("no entry of the manifest is left with these options")
    return chosen


# ---- making the class ---------------------------------------------------------------------------

def solution_files(lab):
    return sorted(p.name for p in (ROOT / "solutions" / lab).iterdir() if p.is_file())


def inputs(entry, corpus):
    """The kit files an entry is made from: a change to any remakes it (and so regrades it)."""
    lab = entry["lab"]
    paths = [ROOT / "solutions" / lab, TESTS / "attacks.py", TESTS / "corpus_selftest.py", TESTS / "inject_bug.py"]
    if entry.get("corpus"):
        paths.append(corpus.CORPUS / entry["corpus"])
    if entry.get("bug"):
        paths.append(bugs_file(lab))
    paths += [ROOT / p for p in entry.get("replace", {}).values()]
    return paths


def recipe_key(entry, corpus):
    digest = hashlib.sha256(json.dumps({k: entry.get(k) for k in sorted(MAKE_KEYS | {"name", "lab"})},
                                       sort_keys=True).encode())
    for path in inputs(entry, corpus):
        for f in sorted([path] if path.is_file() else path.rglob("*")):
            if f.is_file():
                digest.update(str(f.relative_to(ROOT)).encode() + f.read_bytes())
    return digest.hexdigest()[:16]


def bugs_file(lab):
    return ROOT / "labs" / lab / "kit" / "tests" / "reference" / "bugs.py"


def injected(lab, bug, file):
    """The solution's file with one of the lab's bugs injected, by tests/inject_bug.py (its one home)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / file
        done = subprocess.run([sys.executable, str(TESTS / "inject_bug.py"), str(bugs_file(lab)), bug,
                               str(ROOT / "solutions" / lab / file), str(out)], capture_output=True, text=True)
        if done.returncode != 0:
            raise LabkitError(f"bug {bug} of {lab}: {done.stderr.strip() or done.stdout.strip()}")
        return out.read_bytes()


def bug_target(lab, bug):
    """The solution file a bug of the lab's table is injected into."""
    bugs = runpy.run_path(str(bugs_file(lab)))["BUGS"]
    if bug not in bugs:
        raise LabkitError(f"{rel(bugs_file(lab))} has no bug {bug} (it has {', '.join(bugs)})")
    return bugs[bug]["file"]


def lab_files(entry):
    """{student file: bytes} an entry hands in, in its lab's folder; and {path: bytes} it hands in
    elsewhere (misfile)."""
    lab = entry["lab"]
    wanted = entry.get("files", [])
    names = solution_files(lab) if wanted == "solution" else list(wanted)
    files = {f: (ROOT / "solutions" / lab / f).read_bytes() for f in names}
    if entry.get("bug"):
        target = bug_target(lab, entry["bug"])
        files[target] = injected(lab, entry["bug"], target)
    for f, kit_file in entry.get("replace", {}).items():
        files[f] = (ROOT / kit_file).read_bytes()
    for f, text in entry.get("append", {}).items():
        files[f] = files.get(f, b"") + f"\n{text}\n".encode()
    if entry.get("flood"):
        _, attacks = kit_tools()
        files[entry["flood"]] = attacks.compiler_flood().encode()
    elsewhere = {}
    for f, path in entry.get("misfile", {}).items():
        elsewhere[path] = files.pop(f, None) or (ROOT / "solutions" / lab / f).read_bytes()
    return files, elsewhere


def write_tree(top, files):
    for rel_path, data in files.items():
        path = top / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def make_entry(entry, class_dir, tmp):
    """Makes the entry's submission in class_dir; returns its path."""
    corpus, attacks = kit_tools()
    name, lab, layout = entry["name"], entry["lab"], entry.get("layout", "folder")
    files, elsewhere = lab_files(entry)
    if entry.get("corpus"):
        staged = corpus.stage_entry(corpus.Entry(corpus.CORPUS / entry["corpus"]), tmp)
        # an archive the corpus makes itself (archive_escapes) keeps its suffix
        path = class_dir / (f"{name}{''.join(staged.suffixes)}" if staged.is_file() else name)
        if staged.is_dir():
            write_tree(staged / lab, {f: b for f, b in files.items() if not (staged / lab / f).exists()})
        os.replace(staged, path)
        return path
    in_lab = {f"{lab}/{f}": b for f, b in files.items()} | elsewhere
    if layout in ("folder", "flat", "odd-name", "deep"):
        top = class_dir / (attacks.odd_name(f"{name}-") if layout == "odd-name" else name)
        if layout == "deep":
            attacks.deep_folders(top)
        top.mkdir(exist_ok=True)
        write_tree(top, files | elsewhere if layout == "flat" else in_lab)
        if layout == "odd-name":
            (top / attacks.odd_name("notes-")).write_text("a name that is not UTF-8\n")
        if not files and not elsewhere:
            (top / "README.txt").write_text("I did not get to it\n")
        return top
    if layout == "zip":  # as a student zips a checkout of the kit: alice/labs/<lab>/...
        path = class_dir / f"{name}.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for member, data in in_lab.items():
                z.writestr(f"{name}/labs/{member}", data)
        return path
    if layout == "tar.gz":
        path = class_dir / f"{name}.tar.gz"
        with tarfile.open(path, "w:gz") as t:
            for member, data in in_lab.items():
                info = tarfile.TarInfo(f"{name}/{member}")
                info.size, info.mode = len(data), 0o644
                t.addfile(info, io.BytesIO(data))
        return path
    if layout == "corrupt-zip":
        path = class_dir / f"{name}.zip"
        attacks.corrupt_zip(path, {m: d.decode() for m, d in in_lab.items()})
        return path
    # broken-tar: the stream breaks after the first file
    path = class_dir / f"{name}.tar.gz"
    member, data = next(iter(in_lab.items()))
    attacks.broken_tar(path, member, data.decode())
    return path


def remove(path):
    # rm -rf, not shutil.rmtree: the deep layout's 1,100 folders are past Python's recursion.
    subprocess.run(["rm", "-rf", "--", str(path)], check=True)


def make_class(entries, lab_dir):
    """<lab_dir>/class/ holding exactly the entries' submissions: one kept as it is when its recipe
    and the kit files it is made from are unchanged (grade-all then resumes it), else made anew.
    Returns {entry name: its path}."""
    corpus, _ = kit_tools()
    class_dir, made_file = lab_dir / "class", lab_dir / "made.json"
    class_dir.mkdir(parents=True, exist_ok=True)
    try:
        made = json.loads(made_file.read_text())
    except (OSError, ValueError):
        made = {}
    keys = {e["name"]: recipe_key(e, corpus) for e in entries}
    kept = {n: class_dir / m["path"] for n, m in made.items()
            if keys.get(n) == m.get("key") and os.path.lexists(class_dir / m["path"])}
    for child in class_dir.iterdir():
        if child not in kept.values():
            remove(child)
    paths = dict(kept)
    with tempfile.TemporaryDirectory(dir=lab_dir) as tmp:  # beside the class: moved in, never copied
        for e in entries:
            if e["name"] not in paths:
                paths[e["name"]] = make_entry(e, class_dir, Path(tmp))
    write_atomic(made_file, json.dumps({n: {"key": keys[n], "path": p.name} for n, p in paths.items()}, indent=1))
    return paths


def how_made(entry):
    return {k: entry[k] for k in sorted(MAKE_KEYS) if k in entry} | {"layout": entry.get("layout", "folder")}


# ---- grading ------------------------------------------------------------------------------------

def quick_threads():
    """grade-all's --threads under --quick: QUICK_LEAST_THREADS and the cores of the timing side
    that grade-all makes here without --threads (the count the grader's --quick times alone)."""
    counts = sorted({QUICK_LEAST_THREADS, len(split_cores().timing)})
    return ",".join(map(str, counts))


def grade_class(args, lab, lab_dir, sanitize):
    """./labkit grade-all over the lab's class, as an instructor runs it; its call's [start, end]
    added to <lab>/calls.json."""
    cmd = [str(ROOT / "labkit"), "grade-all", str(lab_dir / "class"), lab, "--out", str(lab_dir / "graded"),
           "--build-dir", args.build_dir]
    cmd += ["--jobs", str(args.jobs)] if args.jobs else []
    cmd += ["--work-dir", args.work_dir] if args.work_dir else []
    cmd += ["--sanitize", SANITIZER] if sanitize else []
    cmd += ["--no-perf"] if args.no_perf else []
    cmd += ["--quick"] if not args.full else []
    cmd += ["--threads", quick_threads()] if not (args.full or args.no_perf) else []
    sizes = args.sizes or (None if args.full else QUICK_SIZES)
    cmd += ["--sizes", sizes] if sizes else []
    say(f"\n== {lab}: ./labkit {' '.join(cmd[1:])}")
    calls_file = lab_dir / "calls.json"
    try:
        calls = json.loads(calls_file.read_text())
    except (OSError, ValueError):
        calls = []
    started = time.time()
    try:
        with open(lab_dir / "grade-all.log", "a", errors="replace") as log:
            def show(line):  # what an instructor sees, and a log of it beside the class
                log.write(line)
                sys.stdout.write(line)
                sys.stdout.flush()
            rc, _ = stream(cmd, show)
    finally:  # a call cut short (Ctrl-C, kill) graded some: its time counts
        calls.append([started, time.time()])
        write_atomic(calls_file, json.dumps(calls))
    if rc not in (0, 1):  # 1: a submission without full points, which a rehearsal's class has
        raise LabkitError(f"grade-all of {lab} stopped (exit status {rc}): see {rel(lab_dir / 'grade-all.log')}")


# ---- judging ------------------------------------------------------------------------------------

@dataclass
class Context:
    """What the machine and the options let the rehearsal see."""
    gpu: str        # the CUDA device's name, "" without one
    timing: bool
    sanitize: bool


def load_result(lab_dir, path):
    """(result, the lab's grader report) of a submission from grade-all's results, or (None, None)."""
    folder = shown_name(path.name)
    for f in (lab_dir / "graded" / "results").glob("*.json"):
        try:
            result = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if result.get("folder") == folder:
            return result, read_report(result)
    return None, None


def read_report(result):
    lab = next(iter(result["labs"].values()))
    try:
        return json.loads(Path(lab["report"]).read_text()) if lab.get("report") else {}
    except (OSError, ValueError):
        return {}


def rubric_variants(lab):
    """{variant: its row in the result (status, detail, flags, notes) with its group's kind}."""
    return {v["name"]: dict(v, kind=g["kind"]) for g in lab["groups"] for v in g["variants"]}


def shares(lab):
    """{cpu|gpu|bonus: (points before any sanitizer penalty, what was graded of them) or None}."""
    out = {}
    for part in POINT_PARTS:
        groups = [g for g in lab["groups"] if g["graded"] and g["max_points"] > 0 and
                  (g["bonus"] if part == "bonus" else not g["bonus"] and g["kind"] == part)]
        out[part] = (round(sum(g["points"] + ((g.get("sanitizer") or {}).get("penalty") or 0) for g in groups), 2),
                     round(sum(g["max_points"] for g in groups), 2)) if groups else None
    return out


def uses_timing(cond):
    return bool(TIMING_CONDITIONS & set(cond)) or any(uses_timing(c) for c in cond.get("any_of", []))


def check_item(item, variants, report, honest_report, ctx, lab):
    """(state, why) of one verdict item (a corpus expect item) against the result's variants."""
    corpus, _ = kit_tools()
    globs = [g.strip() for g in item.get("variants", "*").split(",")]
    chosen = [v for n, v in variants.items() if any(fnmatch.fnmatchcase(n, g) for g in globs)]
    if not chosen:
        return NOT, f"{item.get('variants')} matches no variant of the rubric"
    kernel_free = set(item.get("status", [])) <= NO_KERNEL_VERDICTS and set(item) <= {"variants", "match", "status"}
    if not ctx.gpu and any(v["kind"] == "gpu" for v in chosen) and not kernel_free:
        return NOT_GRADED, "no GPU"
    if not ctx.timing and uses_timing(item):
        return NOT_GRADED, "timing off"
    cond = {k: v for k, v in item.items() if k not in ("variants", "match", "or_sanitizer")}
    whys = []
    for v in chosen:
        perf, theirs = (corpus.perf_points(r or {}, v["name"]) for r in (report, honest_report))
        why = corpus.check_condition(cond, v, perf, theirs)
        if why:
            whys.append(f"{v['name']}: {why}")
    failed = len(whys) == len(chosen) if item.get("match") == "any" else bool(whys)
    if not failed:
        return OK, ""
    if item.get("or_sanitizer"):  # a race that did not fire here: the sanitizer must have seen it
        if not ctx.sanitize:
            return NOT_GRADED, "a race that did not fire, and no sanitizer run"
        names = {v["name"] for v in chosen}
        if any(names & set((g.get("sanitizer") or {}).get("variants") or []) for g in lab["groups"]):
            return OK, ""
    return NOT, whys[0] + (f" (and {len(whys) - 1} more)" if len(whys) > 1 else "")


def expected_items(entry):
    """Every verdict item of an entry: the manifest's, and its corpus entry's expect.json."""
    corpus, _ = kit_tools()
    items = parse_verdicts(entry.get("verdicts"), entry["name"], corpus.STATUSES)
    if entry.get("corpus"):
        items += json.loads((corpus.CORPUS / entry["corpus"] / "expect.json").read_text())["expect"]
    return items


def phase_spans(result, lab):
    """{phase: [start, end]} of the result's finished spans: the build's, and the lab's phases'."""
    spans = result.get("spans") or {}
    got = {BUILD_SPAN: spans.get(BUILD_SPAN)} | (spans.get(lab) or {})
    return {k: v for k, v in got.items() if v and v[1]}


def span_s(result, lab, *phases):
    """Seconds of the result's spans of these phases, or None when it has none of them."""
    got = [v[1] - v[0] for k, v in phase_spans(result, lab).items() if k in phases]
    return sum(got) if got else None


def grading_s(result, lab):
    """Seconds the lab's grading held the GPU, the sanitizer's run left out."""
    return span_s(result, lab, *(k for k in phase_spans(result, lab) if k not in (BUILD_SPAN, SANITIZE_SPAN)))


def judge(entry, result, report, yardstick, ctx):
    """The checks of one entry: [(what, state, detail)]."""
    checks = []
    if result is None:
        return [("graded", NOT, "no result: grade-all did not finish it (run rehearse again to resume)")]
    lab_name = entry["lab"]
    lab = result["labs"][lab_name]
    got = shares(lab)
    for part, (lo, hi) in entry.get("points", {}).items():
        if got[part] is None:
            why = "no GPU" if part != "cpu" and not ctx.gpu else "nothing graded"
            checks.append((f"{part} points", NOT_GRADED, why))
            continue
        points, top = got[part]
        share = points / top
        ok = lo - SHARE_SLACK <= share <= hi + SHARE_SLACK
        checks.append((f"{part} points", OK if ok else NOT,
                       f"{points:g}/{top:g} = {share:.2f}, want {lo:g}..{hi:g}"))
    variants = rubric_variants(lab)
    honest = yardstick[1] if yardstick else None
    for item in expected_items(entry):
        state, why = check_item(item, variants, report, honest, ctx, lab)
        want = item.get("status") and "|".join(item["status"]) or "conditions"
        checks.append((f"{item.get('variants', '*')}: {want}", state, why))
    if "sanitizer" in entry:
        if not ctx.sanitize:
            checks.append(("sanitizer", NOT_GRADED, "no GPU" if not ctx.gpu else "--no-sanitize"))
        else:
            view = lab.get("sanitizer") or {}
            penalized = [g["title"] for g in lab["groups"] if (g.get("sanitizer") or {}).get("penalty")]
            if view.get("not_checked"):
                checks.append(("sanitizer", NOT, f"not checked: {view['not_checked']}"))
            else:
                ok = bool(penalized) == entry["sanitizer"]
                checks.append(("sanitizer", OK if ok else NOT,
                               f"penalized: {', '.join(penalized)}" if penalized else "no penalty"))
    text = json.dumps(result, ensure_ascii=False)
    for wanted in entry.get("notes_have", []):
        found = wanted in text
        checks.append((f"notes: {wanted}", OK if found else NOT, "" if found else "not in its result"))
    if entry.get("costs_at_most_s"):
        limit = entry["costs_at_most_s"]
        mine, theirs = grading_s(result, lab_name), yardstick and grading_s(yardstick[0], lab_name)
        if not ctx.gpu:
            checks.append(("cost", NOT_GRADED, "no GPU"))
        elif mine is None or theirs is None:
            checks.append(("cost", NOT_GRADED, "no grading of the lab's first twin to compare with"))
        else:
            checks.append(("cost", OK if mine - theirs <= limit else NOT,
                           f"{mine - theirs:+.0f} s beside the honest twin's grading, at most {limit} s"))
    return checks


def stability(entry, result, twin_result):
    """[(group or groups, state, detail)]: the twins' performance points, group by group; the groups
    not compared, by why."""
    if result is None or twin_result is None:
        return [("*", NOT_GRADED, "not compared: one of the twins has no result")]
    lab = entry["lab"]
    theirs = {g["title"]: g for g in twin_result["labs"][lab]["groups"]}
    rows, skipped = [], {}
    for g in result["labs"][lab]["groups"]:
        t = theirs.get(g["title"], {})
        perf, tperf = g.get("performance") or {}, t.get("performance") or {}
        if perf.get("max") and tperf.get("max"):
            bound = STABILITY_SHARE * perf["max"]
            diff = abs(perf["points"] - tperf["points"])
            rows.append((g["title"], OK if diff <= bound + SHARE_SLACK else NOT,
                         f"{perf['points']:g} and {tperf['points']:g} of {perf['max']:g} (bound ±{bound:.2g})"))
            continue
        notes = [p.get("note", "") for p in (perf, tperf) if p.get("note", "").startswith("not graded: ")]
        why = g["why_not_graded"] if not g["graded"] else notes[0].removeprefix("not graded: ") if notes else ""
        if why:  # else the rubric gives the group no performance points: nothing to compare
            skipped.setdefault(why, []).append(g["title"])
    return rows + [(f"{len(titles)} group(s)", NOT_GRADED, why) for why, titles in skipped.items()]


def noisy_count(results):
    """(times CPU performance was not graded as the machine was too noisy, times it could have been:
    a group with a passing, timed variant, compared with the reference or refused as noisy; and
    [submission, group, why] of each refusal: which measurement moved, so that the next lever is
    known)."""
    noisy, tried = [], 0
    prefix = f"not graded: {NOISY}"
    for r in results:
        for lab in r["labs"].values():
            for g in lab["groups"]:
                perf = g.get("performance") or {}
                if g["kind"] != "cpu" or not g["graded"] or not perf:
                    continue
                is_noisy = perf.get("note", "").startswith(prefix)
                if perf.get("ratio") is not None or is_noisy:
                    tried += 1
                    if is_noisy:
                        noisy.append([r.get("name", "?"), g["title"], perf["note"].removeprefix(prefix).lstrip(": ")])
    return len(noisy), tried, noisy


# ---- where the time went ------------------------------------------------------------------------

def union(intervals):
    """The seconds covered by at least one of the [start, end] intervals."""
    total, end = 0.0, None
    for a, b in sorted(i for i in intervals if i and i[1]):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def lab_times(lab, lab_dir, results):
    """Where the lab's class time went, from grade-all's spans (batch.SPANS) and calls."""
    try:
        calls = json.loads((lab_dir / "calls.json").read_text())
    except (OSError, ValueError):
        calls = []
    spans = [phase_spans(r, lab) for r in results]
    builds = [s[BUILD_SPAN] for s in spans if BUILD_SPAN in s]
    on_gpu = [v for s in spans for k, v in s.items() if k != BUILD_SPAN]
    # The calls that graded something of this class: a call that only resumed adds nothing.
    used = [c for c in calls if any(c[0] <= p[0] <= c[1] for p in on_gpu + builds)]
    wall = sum(c[1] - c[0] for c in used)
    busy = union(on_gpu)
    phases = {}
    for s in spans:
        for k, v in s.items():
            phases[k] = phases.get(k, 0.0) + v[1] - v[0]
    return {"submissions": len(results), "wall_s": round(wall, 1), "calls": len(used),
            "phases_s": {k: round(v, 1) for k, v in phases.items()}, "build_wall_s": round(union(builds), 1),
            "gpu_busy_s": round(busy, 1), "gpu_idle_s": round(max(0.0, wall - busy), 1),
            "per_submission_s": round(wall / len(results), 1) if results else None}


# ---- the report ---------------------------------------------------------------------------------

def points_text(shares_got, entry):
    got = ", ".join(f"{p} {v[0]:g}/{v[1]:g}" for p, v in shares_got.items() if v)
    want = ", ".join(f"{p} {lo:g}..{hi:g}" for p, (lo, hi) in entry.get("points", {}).items())
    return want or "-", got or "-"


def verdict_of(checks):
    bad = [c for c in checks if c[1] == NOT]
    if bad:
        return NOT, f"{bad[0][0]}: {bad[0][2]}" + (f" (+{len(bad) - 1} more)" if len(bad) > 1 else "")
    skipped = sum(c[1] == NOT_GRADED for c in checks)
    return OK, f"{sum(c[1] == OK for c in checks)} checks" + (f", {skipped} not graded here" if skipped else "")


def build_report(ctx, chosen, paths, out):
    rows, entries, times, twins, all_results = [], [], {}, [], []
    for lab, es in chosen.items():
        lab_dir = out / lab
        got = {e["name"]: load_result(lab_dir, paths[e["name"]]) for e in es}
        first_twin = next((e["name"] for e in es if e.get("twin")), None)
        yardstick = got.get(first_twin) if first_twin and got.get(first_twin, (None,))[0] else None
        results = [r for r, _ in got.values() if r]
        all_results += results
        times[lab] = lab_times(lab, lab_dir, results)
        for e in es:
            result, report = got[e["name"]]
            checks = judge(e, result, report, yardstick, ctx)
            if e.get("twin"):
                stable = (stability(e, result, got[e["twin"]][0]) if e["twin"] in got else
                          [("*", NOT_GRADED, f"its twin {e['twin']} is not in this rehearsal")])
                twins.append({"pair": [e["name"], e["twin"]], "lab": lab, "groups": stable})
                checks += [(f"stable: {g}", state, why) for g, state, why in stable]
            state, first = verdict_of(checks)
            lab_entry = result["labs"][lab] if result else None
            want, have = points_text(shares(lab_entry) if lab_entry else {}, e)
            secs = {k: v[1] - v[0] for k, v in phase_spans(result, lab).items()} if result else {}
            total = (f"{lab_entry['points']:g}/{lab_entry['max_points']:g}"
                     + (f" +{lab_entry['bonus_points']:g}" if lab_entry["max_bonus"] else "")) if lab_entry else "-"
            rows.append([e["name"], lab, total, want, have, state, first])
            entries.append({"name": e["name"], "lab": lab, "about": e["about"], "made": how_made(e),
                            "state": "as expected" if state == OK else "not as expected",
                            "points": lab_entry and {"got": lab_entry["points"], "max": lab_entry["max_points"],
                                                     "bonus": lab_entry["bonus_points"], "shares": shares(lab_entry)},
                            "checks": [{"what": w, "state": s, "detail": d} for w, s, d in checks],
                            "seconds": {k: round(v, 1) for k, v in secs.items() if v is not None}})
    return rows, entries, times, twins, noisy_count(all_results)


def write_report(out, args, ctx, rows, entries, times, twins, noise):
    header = ["submission", "lab", "points", "expected shares", "got (before any sanitizer penalty)", "",
              "first check / mismatch"]
    phases = list(dict.fromkeys(k for t in times.values() for k in t["phases_s"] if k != BUILD_SPAN))
    time_header = ["lab", "submissions", "wall s", "per submission s", "builds s (wall)",
                   *(f"{k} s" for k in phases), "GPU busy s", "GPU idle s", "calls"]
    time_rows = [[lab, t["submissions"], t["wall_s"], t["per_submission_s"],
                  f"{t['phases_s'].get(BUILD_SPAN, 0)} ({t['build_wall_s']})",
                  *(t["phases_s"].get(k, "") for k in phases),
                  t["gpu_busy_s"], t["gpu_idle_s"], t["calls"]] for lab, t in times.items()]
    sub_rows = [[e["name"], e["lab"], *(round(e["seconds"][k], 1) if k in e["seconds"] else ""
                                        for k in (BUILD_SPAN, *phases))] for e in entries]
    noisy, tried, which = noise
    no_gpu = ("none (GPU groups, GPU verdicts that need kernels to run, the sanitizer and hung-kernel costs "
              "are not graded)")
    machine = (f"GPU: {ctx.gpu or no_gpu}; "
               f"timing {'on' if ctx.timing else 'off'}; sanitizer {SANITIZER if ctx.sanitize else 'off'}; "
               f"{'full' if args.full else 'quick'} grading")
    definitions = [
        "GPU idle: the wall time of the grade-all calls that graded this class, less the union of every "
        "submission's spans on the GPU (its lab's phases: correctness, timing, sanitizer; the GPU is used only "
        "while a submission is graded; the reference solution's one timing at a run's start is in no span, so it "
        "counts as idle).",
        "Builds: the sum of the submissions' build spans (their slots build side by side; in brackets, the wall "
        "time with at least one build running). The other columns: the sum of each phase's spans, as grade-all "
        "records them (while the phase held its turn on the GPU, not while it waited for one).",
        f"Stability: the twins' performance points, group by group, agree within ±{STABILITY_SHARE:.0%} of the "
        "group's performance points.",
    ]
    table = lambda head, body: markdown_table(head, [[str(c).replace("|", "\\|") for c in r] for r in body])
    md = ["# Class rehearsal", "", machine, "", *table(header, rows), "", "## Where the time went", "",
          *table(time_header, time_rows), "", *[f"- {d}" for d in definitions], "",
          *table(["submission", "lab", f"{BUILD_SPAN} s", *(f"{k} s" for k in phases)], sub_rows), "",
          "## Stability", ""]
    for t in twins:
        md += [f"{' and '.join(t['pair'])} ({t['lab']}):", "",
               *table(["group", "", "performance points"], t["groups"]), ""]
    md += [f"Machine too noisy: {noisy} of {tried} CPU performance gradings of a passing, timed variant." if tried else
           "Machine too noisy: no CPU group had a passing, timed variant (timing off, no reference timing, or none passed).", "",
           *([*table(["submission", "group", "why"], which), ""] if which else []),
           "## Checks", ""]
    for e in entries:
        md += [f"### {e['name']} ({e['lab']}): {e['state']}", "", e["about"], "",
               *table(["check", "", "detail"], [[c["what"], c["state"], c["detail"]] for c in e["checks"]]), ""]
    write_atomic(out / "rehearsal.md", "\n".join(md) + "\n")
    write_atomic(out / "rehearsal.json", json.dumps({
        "machine": machine, "stability_share": STABILITY_SHARE, "entries": entries, "times": times,
        "stability": twins, "machine_too_noisy": {"times": noisy, "of": tried, "which": which}}, indent=1))
    say("")
    print_table(header, rows)
    say("")
    print_table(time_header, time_rows)
    for d in definitions:
        say(f"  {d}")
    for t in twins:
        say(f"stability of {' and '.join(t['pair'])}: " + "; ".join(f"{g}: {s} ({w})" for g, s, w in t["groups"]))
    say(f"machine too noisy: {noisy} of {tried} CPU performance gradings of a passing, timed variant" if tried else
        "machine too noisy: no CPU group had a passing, timed variant here")
    for name, group, why in which:
        say(f"  {name}, {group}: {why}")
    say(machine)
    say(f"report: {rel(out / 'rehearsal.md')}, {rel(out / 'rehearsal.json')}; manifest: {rel(out / 'manifest.json')}")


def write_manifest(out, chosen, paths):
    entries = []
    for lab, es in chosen.items():
        for e in es:
            entries.append({"name": e["name"], "lab": lab, "about": e["about"], "path": rel(paths[e["name"]]),
                            "made": how_made(e), "part": e.get("part", "cpu"),
                            "expect": {k: e[k] for k in sorted(EXPECT_KEYS) if k in e}
                            | {"verdicts": expected_items(e)}})
    write_atomic(out / "manifest.json", json.dumps({"source": rel(MANIFEST), "entries": entries}, indent=1))


def cmd_rehearse(args):
    missing = [m for m in KIT_MATERIAL if not (ROOT / m).is_dir()]
    if missing:
        raise LabkitError(f"rehearse makes its class from the kit's own {' and '.join(missing)}, which this copy "
                          "lacks (the student tarball leaves them out)")
    if args.cpu_only and args.gpu_only:
        raise UsageError("--cpu-only and --gpu-only: choose one")
    args.manifest_path = kit_path(args.manifest) if args.manifest else MANIFEST
    corpus, _ = kit_tools()
    chosen = select(load_manifest(args.manifest_path, corpus.STATUSES), args)
    out = kit_path(args.out or DEFAULT_OUT)
    gpu = machine_gpu(open_build(build_dir_of(args)))
    ctx = Context(gpu, timing=not args.no_perf, sanitize=bool(gpu) and not args.no_sanitize)
    if args.gpu_only and not gpu:
        say("rehearse: no GPU here: the GPU part's expectations are not graded on this machine")
    paths = {}
    for lab, es in chosen.items():
        say(f"{lab}: {len(es)} submission(s) in {rel(out / lab / 'class')}")
        paths.update(make_class(es, out / lab))
    write_manifest(out, chosen, paths)
    if not args.no_grade:
        for lab in chosen:
            grade_class(args, lab, out / lab, ctx.sanitize)
    rows, entries, times, twins, noise = build_report(ctx, chosen, paths, out)
    write_report(out, args, ctx, rows, entries, times, twins, noise)
    bad = sum(e["state"] != "as expected" for e in entries)
    say(f"rehearsal: {len(entries)} submissions, {len(entries) - bad} as expected, {bad} not")
    return 1 if bad else 0
