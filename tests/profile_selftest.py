#!/usr/bin/env python3
"""`labkit profile`: ncu's CSV read back from a recorded one (written from ncu's documented
details-page format: one row per metric of each launch, thousands separators, scaled units), the
timed run found between the harness's two L2 flushes, each kernel's launches summed and weighted;
ncu's refusals (ERR_NVGPUCTRPERM, a runner's error) said in one message; and, on this machine, the
command itself: an unknown or CPU variant refused with exit 2, and without a GPU or ncu, exit 1
naming what is missing, never a traceback. Plain Python: seconds.

    profile_selftest.py [--build-dir DIR]   (without it, only the parts that need no build)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "cli"))

from labkit import ncu, proc, profile  # noqa: E402
from labkit.util import LabkitError, markdown_table  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
SCAN = "void integral_image::scan_rows<(int)1024>(labkit::View<const unsigned char>, labkit::View<unsigned int>, int)"
ADD = "integral_image::<unnamed>::add_carries(labkit::View<unsigned int>, const unsigned int *)"
FLUSH = "unnamed>::read_sweep(const uint4 *, unsigned long, unsigned int *)"  # as ncu 2025 wrote it
STALL = ncu.STALL_PREFIX + "{}" + ncu.STALL_SUFFIX


def launch(id_, kernel, metrics):
    """ncu's CSV rows of one launch: metrics {name: (unit, value as ncu prints it)}."""
    return [f'"{id_}","4242","integral_image_runner","gpu-node","{kernel}","1","13","(256, 1, 1)","(8192, 1, 1)",'
            f'"0","9.0","Command line profiler metrics","{name}","{unit}","{value}"' for name, (unit, value) in metrics.items()]


def scan_metrics(us, dram_pct, barrier, long_sb):
    return {"gpu__time_duration.sum": ("usecond", us), "dram__throughput.avg.pct_of_peak_sustained_elapsed": ("%", dram_pct),
            "dram__bytes.sum.per_second": ("Tbyte/second", "2.50"),
            "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "61.20"),
            "sm__maximum_warps_per_active_cycle_pct": ("%", "100"),
            "launch__registers_per_thread": ("register/thread", "32"), "launch__block_size": ("", "1,024"),
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ("", "2,000,000"),
            "smsp__sass_inst_executed_op_shared_ld.sum": ("inst", "1,000,000"),
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": ("", "500,000"),
            "smsp__sass_inst_executed_op_shared_st.sum": ("inst", "500,000"),
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": ("", "1,000,000"),
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": ("", "0"),
            STALL.format("barrier"): ("", barrier), STALL.format("long_scoreboard"): ("", long_sb),
            STALL.format("selected"): ("", "1.00"), STALL.format("wait"): ("", "1.00")}


ADD_METRICS = {"gpu__time_duration.sum": ("msecond", "0.10"), "dram__throughput.avg.pct_of_peak_sustained_elapsed": ("%", "90"),
               "dram__bytes.sum.per_second": ("Gbyte/second", "3,000"), "launch__registers_per_thread": ("", "16"),
               "launch__block_size": ("", "256"), "smsp__sass_inst_executed_op_shared_ld.sum": ("inst", "0"),
               "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ("", "0"),
               "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "n/a")}
FLUSH_METRICS = {"gpu__time_duration.sum": ("usecond", "26.00")}


def recorded_csv():
    """The warm-up (a scan), a flush, the timed run (the scan twice, the add-back once), a flush,
    the end-to-end run: what `runner time ... --runs 1` launches."""
    rows = (launch(0, SCAN, scan_metrics("999.00", "10", "9", "9")) + launch(1, FLUSH, FLUSH_METRICS)
            + launch(2, SCAN, scan_metrics("300.00", "40", "6.00", "2.00"))
            + launch(3, SCAN, scan_metrics("100.00", "80", "2.00", "6.00"))
            + launch(4, ADD, ADD_METRICS) + launch(5, FLUSH, FLUSH_METRICS) + launch(6, SCAN, scan_metrics("1", "1", "1", "1")))
    return "\n".join(["==PROF== Connected to process 4242 (/x/integral_image_runner)", "==PROF== Disconnected", HEADER, *rows,
                      "==WARNING== a line ncu adds at the end"]) + "\n"


def expect(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)
    print("ok:", what)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def test_parsing():
    launches = ncu.parse_csv(recorded_csv())
    expect([l["id"] for l in launches] == list(range(7)), "every launch read, in order, around ncu's own lines")
    expect(close(launches[2]["metrics"]["gpu__time_duration.sum"], 300e-6), "usecond -> seconds")
    expect(close(launches[4]["metrics"]["dram__bytes.sum.per_second"], 3e12), "thousands separator and Gbyte/second")
    expect("sm__warps_active.avg.pct_of_peak_sustained_active" not in launches[4]["metrics"], "n/a is no value")
    timed = ncu.timed_run(launches)
    expect([l["id"] for l in timed] == [2, 3, 4], "the timed run: the launches between the two flushes")
    rows = ncu.aggregate(timed)
    expect([r["kernel"] for r in rows] == ["scan_rows<(int)1024>", "add_carries", "(all kernels)"],
           "one row per kernel (short names), then all kernels")
    scan, add, every = (r["metrics"] for r in rows)
    expect(rows[0]["launches"] == 2 and close(scan["gpu__time_duration.sum"], 400e-6), "durations summed")
    expect(close(scan["dram__throughput.avg.pct_of_peak_sustained_elapsed"], (40 * 300 + 80 * 100) / 400),
           "DRAM % weighted by duration")
    expect(close(scan["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 2e6), "counts summed")
    expect(scan["launch__registers_per_thread"] == [32.0], "a launch setting: its distinct values")
    expect(every["launch__registers_per_thread"] == [16.0, 32.0], "several when the kernels differ")
    shares = ncu.stall_shares(scan)
    # weighted: barrier (6*300+2*100)/400 = 5, long_scoreboard 3, wait 1 ("selected" is no stall)
    expect([r for r, _ in shares] == ["barrier", "long_scoreboard", "wait"] and close(shares[0][1], 5 / 9),
           "stall shares, largest first, without 'selected'")
    header, cells = ncu.table(rows)
    cell = dict(zip(header, cells[0]))
    expect(cell["ncu ms"] == "0.400" and cell["DRAM % of peak"] == "50.0" and cell["DRAM GB/s"] == "2500",
           f"time, DRAM % and GB/s cells: {cell}")
    expect(cell["smem wavefronts/instr ld, st"] == "2.00, 1.00", "wavefronts per shared instruction (2-way conflicts)")
    expect(cell["top stalls (share of stalls)"] == "barrier 56%, long_scoreboard 33%, wait 11%", "the stalls cell")
    expect(dict(zip(header, cells[1]))["smem wavefronts/instr ld, st"] == "—, —", "no shared access: a dash")
    expect(dict(zip(header, cells[1]))["occupancy % (theoretical)"] == "— (—)", "a missing value: a dash")
    md = markdown_table(header, cells)
    expect(len(md) == 2 + len(cells) and all(l.count("|") == len(header) + 1 for l in md), "a Markdown table")
    expect(len(ncu.legend()) == len(ncu.COLUMNS), "a legend line per column")
    try:
        ncu.timed_run(launches[2:5])
        expect(False, "no flush: refused")
    except ValueError as e:
        expect("flushes" in str(e), "no flush: the timed run cannot be told, and it says so")
    try:
        ncu.parse_csv("==ERROR== nothing\n")
        expect(False, "no CSV: refused")
    except ValueError:
        expect(True, "no CSV header: a ValueError")
    flush_src = (ROOT / "common" / "l2_flush.cu").read_text()
    expect(re.search(rf"__global__ void {ncu.FLUSH_KERNEL}\(", flush_src), "FLUSH_KERNEL is the harness's flush kernel")
    expect(profile.answers(1).splitlines()[:3] == [str(profile.SEED)] * 2 + ["-"], "the runner's questions answered")


def refused(call, *words):
    try:
        call()
    except LabkitError as e:
        missing = [w for w in words if w not in str(e)]
        expect(not missing, f"refused, saying {words}" + (f" (missing {missing}: {e})" if missing else ""))
        return
    expect(False, f"refused, saying {words}")


def test_ncu_refusals():
    with tempfile.TemporaryDirectory() as tmp:
        rep = Path(tmp) / "r.ncu-rep"
        perm = ("==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
                "access NVIDIA GPU Performance Counters on the target device 0.\n")
        refused(lambda: profile.check_ncu_run(1, perm, False, rep), "ERR_NVGPUCTRPERM",
                "NVreg_RestrictProfilingToAdminUsers=0", "https://developer.nvidia.com/ERR_NVGPUCTRPERM")
        refused(lambda: profile.check_ncu_run(3, "seed\t-1\nerror\tCUDA error: out of memory\n", False, rep),
                "did not run under ncu", "out of memory")
        refused(lambda: profile.check_ncu_run(1, "==ERROR== Failed to find metric x\n", False, rep), "ncu failed", "x")
        refused(lambda: profile.check_ncu_run(0, "", True, rep), "ran past")
        rep.write_text("a report")
        profile.check_ncu_run(0, "==PROF== Disconnected\n", False, rep)
        expect(True, "a clean run passes")
        # ncu nowhere: not on PATH, not beside nvcc, not in the toolkit's folder
        saved = os.environ["PATH"], proc.CUDA_BIN
        os.environ["PATH"], proc.CUDA_BIN = tmp, tmp
        try:
            expect(proc.find_cuda_tool("ncu") is None, "no ncu anywhere: None")
            fake = Path(tmp) / "ncu"
            fake.write_text("#!/bin/sh\n")
            fake.chmod(0o755)
            expect(proc.find_cuda_tool("ncu") == str(fake), "ncu on PATH: found")
        finally:
            os.environ["PATH"], proc.CUDA_BIN = saved


def labkit(build_dir, *words):
    cmd = [str(ROOT / "labkit"), *words, "--build-dir", str(build_dir)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300,
                       env={**os.environ, "LABKIT_PYTHON": "none"})
    print("$", " ".join(cmd[1:]), "->", r.returncode)
    print("  " + r.stdout.strip().replace("\n", "\n  "))
    expect("Traceback" not in r.stdout and "internal error" not in r.stdout, "no traceback")
    return r.returncode, r.stdout


def test_command(build_dir):
    info = json.loads((Path(build_dir) / "labkit-build.json").read_text())
    lab = next((l["name"] for l in info.get("labs", []) if l["name"] == "integral_image"), None)
    if lab is None:
        print("skipped: this build has no integral_image")
        return
    rc, out = labkit(build_dir, "profile", lab, "gpu-02-kogge-stone-s1024")
    expect(rc == 2 and "no variant" in out and "gpu-02-kogge-stone-s1024-b8" in out, "an unknown variant: close names")
    rc, out = labkit(build_dir, "profile", lab, "cpu-openmp")
    expect(rc == 2 and "CPU" in out and "gpu-01-naive" in out, "a CPU variant: the GPU ones named")
    if info.get("cuda") is False:
        rc, out = labkit(build_dir, "profile", lab, "gpu-01-naive")
        expect(rc == 1 and "without CUDA" in out, "a build without CUDA says so")
        return
    rc, out = labkit(build_dir, "profile", lab, "gpu-01-naive", "--size", "0")
    expect(rc == 2 and "--size" in out, "--size 0 refused")
    gpu = subprocess.run([str(Path(build_dir) / l["grader"]) for l in info["labs"] if l["name"] == lab][:1] + ["device"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).returncode == 0
    if gpu and proc.find_cuda_tool("ncu"):
        print("skipped: a GPU and ncu are here (a real profile is the device's command, not this test's)")
        return
    rc, out = labkit(build_dir, "profile", lab, "gpu-01-naive")
    expect(rc == 1 and "cannot profile here" in out, "exit 1: cannot profile here")
    expect(gpu or "has none" in out, "no GPU: said")
    expect(proc.find_cuda_tool("ncu") or ("ncu" in out and "CUDA toolkit" in out and "nsight-compute" in out),
           "no ncu: said, and where it comes from")


def test_report_names():
    """Two profiles of one variant at other parameters or sizes keep separate files (they once
    shared one name, and profiling k=9 after k=25 overwrote the first)."""
    names = {profile.report_stem("convolution", "gpu-03-tiled-b16x16", "solution", size, params)
             for size, params in ((8192, "k=25"), (8192, "k=9"), (8192, "disk:25"), (4096, "k=25"), (8192, ""))}
    expect(len(names) == 5, "one report name per size and parameters")
    expect(all("/" not in n and ":" not in n and "=" not in n for n in names), "report names are plain file names")


def main():
    test_parsing()
    test_report_names()
    test_ncu_refusals()
    if "--build-dir" in sys.argv:
        test_command(sys.argv[sys.argv.index("--build-dir") + 1])
    print("profile selftest: passed")


if __name__ == "__main__":
    main()
