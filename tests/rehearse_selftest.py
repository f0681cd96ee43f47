#!/usr/bin/env python3
"""`labkit rehearse`: a class made from the kit's own material, graded by grade-all, judged against
the manifest (tests/rehearsal.toml).

    rehearse_selftest.py --build-dir BUILD          CI's part, no GPU needed (about 3 minutes on 2 cores)
    rehearse_selftest.py --build-dir BUILD --gpu racecheck|timing
                                                    the rehearsal's GPU part, in two; 77 (skipped) without a GPU

CI's part: Lab 3's sample (the solution whole and in part, a compile error, a CPU cheat, a corrupt
zip), the submissions whose checks show without a GPU, correctness only on the quick sizes: every
one as expected, the manifest and the report written beside the class, the time of the builds and
gradings accounted for. Then the same results judged against a manifest with one expectation made
wrong (--no-grade: nothing is graded again): exit 1, that submission named, the class kept as it
was. The GPU part: the sample of what only a GPU shows (the race only racecheck sees, a hang beside its
honest twin) and the twins, all as expected: `racecheck` grades Lab 2's sample under the sanitizer
without timing, so that it can run beside the gpu suite's other tests; `timing` grades Lab 1's with
timing on, alone on the GPU (its twins' performance points must agree, its deadlock be cheap)."""
import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from checks import expect  # noqa: E402

KIT = Path(__file__).resolve().parent.parent
SKIP = 77  # Meson's "skipped"
LAB = "convolution"  # the lab whose files compile fastest: the sample's builds are most of its time
SAMPLE = ["--sample", "--cpu-only", "--no-perf", "--sizes", "quick", "--jobs", "1"]
# The GPU sample, in two parts that fit the acceptance run's 10 minutes: Lab 2's under racecheck
# (its race that only the sanitizer sees) and without timing, Lab 1's timed and without racecheck
# (its deadlock and twins; racecheck over Lab 1's 38 GPU variants would take most of the budget,
# and Lab 2's run covers the sanitizer).
GPU_SAMPLES = {"racecheck": ["histogram_equalization", "--gpu-only", "--sample", "--jobs", "4", "--no-perf"],
               "timing": ["integral_image", "--gpu-only", "--sample", "--jobs", "4", "--no-sanitize"]}
FINAL = re.compile(r"^rehearsal: (\d+) submissions, (\d+) as expected, (\d+) not$")


def rehearse(build, out, work, *extra):
    cmd = [str(KIT / "labkit"), "rehearse", "--build-dir", str(build), "--out", str(out), "--work-dir", str(work),
           *extra]
    done = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True, errors="replace")
    text = done.stdout + done.stderr
    expect("Traceback" not in text and "internal error" not in text, "rehearse ends without a traceback")
    lines = [l for l in text.splitlines() if l.strip()]
    m = FINAL.match(lines[-1]) if lines else None
    expect(m is not None, f"its last line is the rehearsal's summary: {lines[-1] if lines else '(no output)'}")
    return done.returncode, text, tuple(map(int, m.groups())) if m else (0, 0, 0)


def wrong_manifest(path):
    """The manifest with one expectation made wrong: the honest whole solution's CPU points 0."""
    blocks = (KIT / "tests" / "rehearsal.toml").read_text().split("[[entry]]")
    honest = next(i for i, b in enumerate(blocks) if 'name = "cv-honest-a"' in b)
    blocks[honest] = re.sub(r"(?m)^points = .*$", "points = { cpu = [0, 0] }", blocks[honest])
    path.write_text("[[entry]]".join(blocks))


def cpu_part(build, tmp):
    out, work = tmp / "out", tmp / "work"
    rc, text, (total, good, bad) = rehearse(build, out, work, LAB, *SAMPLE)
    print(text[-6000:])
    manifest = json.loads((out / "manifest.json").read_text())
    expect(rc == 0 and total == len(manifest["entries"]) >= 4 and good == total and bad == 0,
           f"every submission of the sample as expected: {total} submissions, {good} as expected, {bad} not "
           f"(exit {rc})")
    expect(all(e["expect"].get("points") and e["made"] for e in manifest["entries"]),
           "the manifest beside the class says how each submission was made and what it must get")
    report = json.loads((out / "rehearsal.json").read_text())
    times = report["times"][LAB]
    phases = times["phases_s"]
    expect(times["wall_s"] > 0 and phases.get("build", 0) > 0 and len(phases) >= 2 and times["gpu_busy_s"] > 0
           and times["gpu_busy_s"] + times["gpu_idle_s"] <= times["wall_s"] + 0.2, f"where the time went: {times}")
    expect(all(e["seconds"].get("build") is not None for e in report["entries"]),
           "each submission's build time is known")
    expect((out / "rehearsal.md").read_text().startswith("# Class rehearsal"), "rehearsal.md is written")
    made = {p.name: p.stat().st_mtime for p in (out / LAB / "class").iterdir()}
    wrong = tmp / "wrong.toml"
    wrong_manifest(wrong)
    rc, text, (total2, good2, bad2) = rehearse(build, out, work, LAB, *SAMPLE, "--no-grade", "--manifest", str(wrong))
    expect(rc == 1 and bad2 == 1 and good2 == total - 1 and "cv-honest-a" in text and "cpu points" in text,
           f"a wrong expectation is a mismatch that names the submission, exit 1: {total2} submissions, "
           f"{good2} as expected, {bad2} not (exit {rc})")
    expect({p.name: p.stat().st_mtime for p in (out / LAB / "class").iterdir()} == made,
           "the class is kept as it was (its recipes did not change): grade-all resumes it")


def gpu_part(build, tmp, part):
    sys.path.insert(0, str(KIT / "tests"))
    from corpus_selftest import has_gpu  # noqa: E402
    if not has_gpu(build):
        print("skipped: no CUDA device (the rehearsal's GPU part needs one)")
        return SKIP
    # The GPU acceptance run's share (./labkit test --gpu, 10 minutes for every GPU test): the
    # sample of what only a GPU shows, the race only racecheck sees, the deadlock beside its honest
    # twin, and the twins whose performance points must agree. The whole rehearsal is
    # `./labkit rehearse` on a GPU node.
    sample = GPU_SAMPLES[part]
    rc, text, (total, good, bad) = rehearse(build, tmp / sample[0], tmp / "work", *sample)
    print(text[-8000:])
    expect(rc == 0 and good == total > 0 and bad == 0,
           f"{sample[0]}'s GPU sample ({part}) as expected: {total} submissions, {good} as expected, {bad} not "
           f"(exit {rc})")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=str(KIT / "build"))
    parser.add_argument("--gpu", choices=sorted(GPU_SAMPLES), help="a GPU part (skipped without a GPU)")
    args = parser.parse_args()
    build = Path(args.build_dir).resolve()
    with tempfile.TemporaryDirectory(prefix="labkit-rehearse-") as tmp:
        if args.gpu:
            return gpu_part(build, Path(tmp), args.gpu)
        cpu_part(build, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
