#!/usr/bin/env python3
"""`labkit bench --peers` on this machine, small sizes: the kit's variants are checked and timed,
every peer that cannot run here is a note (never a number), and the Markdown table is written.
On a machine without a GPU, the GPU variants are said to be untimed. Writes only into a
temporary folder.

    bench_selftest.py --build-dir BUILD
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from checks import expect  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit.bench import table as peers_table  # noqa: E402
from labkit.verdicts import PASS  # noqa: E402

KIT = Path(__file__).resolve().parent.parent
LAB = "integral_image"


def check_peer_rows():
    """A peer's "random N" row sits beside the kit's noise row, and a peer that names its own
    floor (a histogram alone: 1 B/px) is measured against it, not against the lab's. A CPU row is
    divided by the fastest GPU variant's end-to-end time; a run's passes are shown."""
    report = {"lab": "histogram_equalization", "environment": {"copy_gbps": 1000.0},
              "performance": [{"exercise": "histogram_equalization", "variant": "gpu-03-aggregated-ks-b256",
                               "kind": "gpu", "width": 1000, "height": 1000, "kernel_ms": 0.004,
                               "e2e_ms": 0.05, "pass_ms": [0.001, 0.003], "pct_copy_min_bytes": 50.0}],
              "variants": [{"name": "cpu-sequential", "exercise": "histogram_equalization", "reference": True}]}
    peers = {"npp_gpu": {"ms": {"random 1000": 0.008}},
             "hist_gpu": {"ms": {"histogram-only random 1000": 0.001}, "floor_bytes_per_pixel": 1},
             "opencv_cpu": {"ms": {"random 1000": 0.1}}}
    rows, _ = peers_table(report, peers)
    by_name = {r[1]: r for r in rows}
    expect(by_name["npp_gpu"][0] == by_name["gpu-03-aggregated-ks-b256"][0] == "1000²",
           "a peer's random row shares the kit's noise row")
    expect(by_name["npp_gpu"][5] == "2.00", "and gets its ratio to the kit's fastest")
    expect(by_name["hist_gpu"][6] == "100.0", "a histogram-only peer's % of copy uses its own 1 B/px floor")
    expect(by_name["opencv_cpu"][5] == "2.00", "a CPU peer is divided by the kit's end-to-end time (0.1 / 0.05)")
    expect(by_name["gpu-03-aggregated-ks-b256"][4] == "0.0500", "the kit's row shows its end-to-end time")
    expect(by_name["gpu-03-aggregated-ks-b256"][7] == "0.0010 + 0.0030", "and its passes")
    # Each of the lab's own peers is a row of its own, however its name begins; a step keeps its fastest.
    timing = report["performance"][0]
    report["performance"] += [dict(timing, variant="gpu-03-aggregated-ks-b512", kernel_ms=0.003),
                              dict(timing, variant="peer-npp", kernel_ms=0.002),
                              dict(timing, variant="peer-npp-separable", kernel_ms=0.001),
                              dict(timing, variant="peer-cub-blockscan-s256-b8", kernel_ms=0.002),
                              dict(timing, variant="peer-cub-blockscan-s1024-b8", kernel_ms=0.001)]
    report["variants"] += [{"name": n, "exercise": "histogram_equalization", "peer": True, "status": PASS}
                           for n in ("peer-npp", "peer-npp-separable", "peer-cub-blockscan-s256-b8",
                                     "peer-cub-blockscan-s1024-b8")]
    names = [r[1] for r in peers_table(report, {})[0]]
    expect("peer-npp" in names and "peer-npp-separable" in names, "two peers of one library: two rows")
    expect("peer-cub-blockscan-s1024-b8" in names and "peer-cub-blockscan-s256-b8" not in names,
           "a peer's configurations: one row, its fastest")
    expect("gpu-03-aggregated-ks-b512" in names and "gpu-03-aggregated-ks-b256" not in names,
           "a step of the handout: its fastest configuration only")


def check_resume(build, out, cmd, page):
    """--resume goes on with the run in --out: the lab it benched is kept (not run again), the lab
    named now is run, and the page holds both, made in two calls. Another command is refused."""
    other = "histogram_equalization"
    resume = [a if a != LAB else other for a in cmd] + ["--resume"]
    proc = subprocess.run(resume, cwd=KIT, capture_output=True, text=True, timeout=900)
    text = proc.stdout + proc.stderr
    expect(proc.returncode == 0 and "Traceback" not in text, f"--resume: exit 0 ({proc.returncode}: {text[-1500:]})")
    expect(f"{LAB}: benched by an earlier call" in text and f"=== {other}: the kit's" in text,
           "--resume keeps the lab benched before and runs the one named now")
    resumed = (out / "results.md").read_text()
    expect(f"## {LAB}" in resumed and f"## {other}" in resumed and "in 2 calls" in resumed,
           "the page holds both labs, and says the run took two calls")
    expect(resumed.split(f"## {LAB}", 1)[1].split("## ", 1)[0] == page.split(f"## {LAB}", 1)[1],
           "the kept lab's table is the one its own call wrote")
    refused = subprocess.run(resume[:-1] + ["--runs", "4", "--resume"], cwd=KIT, capture_output=True, text=True, timeout=120)
    expect(refused.returncode == 2 and "not of" in refused.stderr + refused.stdout,
           "--resume refuses another command's run")


def main():
    check_peer_rows()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(KIT / "build"))
    build = Path(parser.parse_args().build_dir).resolve()
    with tempfile.TemporaryDirectory(prefix="labkit-bench-") as tmp:
        out = Path(tmp)
        cmd = [str(KIT / "labkit"), "bench", LAB, "--peers", "--sizes", "128,256", "--runs", "3",
               "--build-dir", str(build), "--out", str(out), "--page", str(out / "results.md")]
        proc = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True, timeout=900)
        text = proc.stdout + proc.stderr
        print(text[-4000:])
        expect("Traceback" not in text, "bench ends without a traceback")
        expect(proc.returncode == 0, f"exit 0 ({proc.returncode})")
        table = (out / f"{LAB}-peers.md").read_text()
        for row in ("| 128² | cpu-sequential | cpu |", "| 256² | cpu-openmp | cpu |"):
            expect(row in table, f"the table has the kit's row {row!r}")
        expect("transpose" not in table, "only the lab's main exercise, the one the peers compute (not the transposes)")
        for peer in ("npp_integral_gpu", "torch_cumsum_gpu", "opencv_integral_cpu"):
            measured = f"| {peer} |" in table
            noted = f"- {peer}: not measured" in table
            expect(measured != noted, f"{peer}: measured, or noted as not measured (never both, never neither)")
        gpu = subprocess.run([str(build / "labs" / f"{LAB}_grader"), "device"], capture_output=True).returncode == 0
        if gpu:
            expect("| gpu-05-expert |" in table, "with a GPU, the GPU variants are timed")
        else:
            expect("GPU variants were compiled, not timed" in table, "without a GPU, the table says so")
        expect((out / f"{LAB}-bench-solution.json").is_file(), "the grader's report is kept beside the table")
        page = (out / "results.md").read_text()
        expect(page.startswith("# Measured results") and "--page" in page and f"## {LAB}" in page and table.strip() in page,
               "--page writes the results page: the command, and the lab's table as printed")
        expect("{" not in page.split("## ")[0] and "](./)" in page,  # the page lies in --out here
               "its header is filled in (no template left), and links the run's reports relative to the page")
        again = subprocess.run([str(KIT / "labkit"), "bench", "--render", str(out), "--page", str(out / "again.md"),
                                "--build-dir", str(build)],  # the default one, unconfigured, would be set up first
                               cwd=KIT, capture_output=True, text=True, timeout=120)
        drawn = (out / "again.md").read_text() if again.returncode == 0 else ""
        expect(drawn.split("## ", 1)[-1] == page.split("## ", 1)[-1] and "drawn again from those reports" in drawn,
               f"--render draws the same tables from the run's reports, and says so ({again.stderr.strip()[-300:]})")
        check_resume(build, out, cmd, page)
    print("all ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
