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

KIT = Path(__file__).resolve().parent.parent
LAB = "integral_image"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(KIT / "build"))
    build = Path(parser.parse_args().build_dir).resolve()
    with tempfile.TemporaryDirectory(prefix="labkit-bench-") as tmp:
        out = Path(tmp)
        cmd = [str(KIT / "labkit"), "bench", LAB, "--peers", "--sizes", "128,256", "--runs", "3",
               "--build-dir", str(build), "--out", str(out)]
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
    print("all ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
