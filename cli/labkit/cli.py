"""The command line: one argparse parser for every Python subcommand, and main(), which makes
sure that no command ends in a traceback."""

import argparse
import math
import os
import signal
import sys
import traceback

from . import grader_cli
from .commands import cmd_build, cmd_grade, cmd_list, cmd_run
from .batch import cmd_grade_all, default_jobs
from .bench import BENCH_SETS, DEFAULT_SIZES, PEER_RUNS, cmd_bench
from .build import COMPILE_TIMEOUT_S, CONSTEXPR_OPS_LIMIT
from .datasets import cmd_datasets
from .dist import cmd_dist
from .gradebook import cmd_gradebook
from .gradescope import cmd_gradescope_bundle
from .plots import cmd_plot
from .profile import PROFILE_SIZE, cmd_profile
from .rehearse import DEFAULT_OUT as REHEARSAL_OUT, MANIFEST, QUICK_LEAST_THREADS, QUICK_SIZES, SANITIZER, cmd_rehearse
from .sanitize import SANITIZER_TOOLS
from .slurm import add_options as add_slurm_options, forwarded_args
from .testrun import GPU_BUDGET_S, cmd_test
from .facts import TIMED_SIZES
from .verdicts import BUILD_ERROR, CRASH, ERROR, FAIL, NOT_RUN, PASS, PASS_EMULATED, SHOWN, SKIPPED, TIMEOUT, TODO
from .util import RESULTS, LabkitError, UsageError, rel, say, write_atomic


SHELL_COMMANDS = {
    "setup": "install what is missing (apt-get), then configure the build (meson setup); --user: without root "
             "(meson and ninja from PyPI, headers from the bundle); --python: also the Python track's .venv-python/",
    "bundle": "download the .debs an offline GPU node lacks into third_party/debs/; --python: also the Python "
              "track's wheels into third_party/wheels/",
}


def shell_command(args):
    raise UsageError(f"'{args.command}' is bash, cli/setup.sh: run it as ./labkit {args.command}")


def make_parser(spec=None):
    """The parser of every command; spec: the grader's options (grader_cli.spec_for), offered by
    the grading commands."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--build-dir", default="build", metavar="DIR",
                        help="the configured build folder (default: build)")
    # What a grader checks and times (`grade` and `grade-all` alike): the grader's own options,
    # read from it (grader_cli.py), handed on as given.
    grading = argparse.ArgumentParser(add_help=False)
    add_grader_options(grading, spec)
    # Without a built grader its options cannot be listed: the grading commands' help says so.
    unlisted = "" if spec else (" The grader's options (--sizes, --quick, --no-perf, --runs, ...) are listed here "
                                "once a grader is built (./labkit build); each is handed to it as given.")
    grading.add_argument("--lab-timeout", type=positive(float), metavar="SEC",
                         help="wall-clock limit of one grader process, after which its whole process "
                         "group is killed (default: (--timeout, else 120) x (the kit's variants + 1) "
                         "+ 60, at most 6 hours)")
    parser = argparse.ArgumentParser(
        prog="./labkit", description="GPU Labkit: build, grade and test the labs. ./labkit COMMAND --help gives "
        "the options of one.", epilog="First time on a machine:  ./labkit setup && ./labkit grade")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    # The two that run before python3 is there: ./labkit hands them to cli/setup.sh (bash), never here;
    # listed so that this is the one list of the commands.
    for name, text in SHELL_COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False).set_defaults(func=shell_command)

    p = sub.add_parser("build", parents=[common], help="compile what grading runs (--all: the tests' programs too)",
                       description="Configures the build folder when needed, then compiles what ./labkit grade "
                       "runs, with a GPU or without: each lab's grader, your runner and its emulated twin (the "
                       "GPU steps on the CPU), the reference's runner, and the dataset generator. The "
                       "reference's emulated runner (grade --solution without a GPU) is built when first asked "
                       "for; the tests' own programs (broken and cheating runners, unit tests) by --all and by "
                       "./labkit test.")
    p.add_argument("-j", "--jobs", type=int, help="parallel jobs (ninja's default otherwise)")
    p.add_argument("--all", action="store_true", help="everything, the tests' programs too (ninja -C build)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser(
        "grade", parents=[common, grading], help="grade labs (yours and the reference, or submissions)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Builds what is needed, then runs each lab's grader. Default: your files "
        "(labs/<lab>/, label 'student') and, when present, the reference (label 'solution'); "
        "reports go to results/<lab>-<label>.{json,md,csv}, diff images of failures to "
        "results/diff/, and a side-by-side summary is printed." + unlisted,
        epilog=f"Statuses: {SHOWN[PASS]}; {SHOWN[PASS_EMULATED]} (a GPU variant right on the CPU, --emulate: NOT a "
        f"GPU pass, not timed); {SHOWN[FAIL]} (first mismatch, diff PNG); {SHOWN[TODO]} (not implemented yet); "
        f"{SHOWN[TIMEOUT]}; {SHOWN[CRASH]}; {SHOWN[ERROR]} (a CUDA or other error); {SHOWN[BUILD_ERROR]}; "
        f"{SHOWN[NOT_RUN]} (a GPU variant that compiled, on a machine without a CUDA device: NOT checked); "
        f"{SHOWN[SKIPPED]}."
        "\nOn a cluster's GPU node, from its login node (the kit's folder shared by both):\n"
        "  ./labkit grade integral_image --slurm --partition gpu --time 20\n"
        "Exit status: 0 when every implemented variant passed, 1 otherwise.")
    p.add_argument("labs", nargs="*", metavar="LAB", help="labs to grade (default: all)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--solution", action="store_true", help="grade only the reference solution")
    who.add_argument("--submission", nargs="+", metavar="PATH",
                     help="instructor: grade these submitted folders (or .zip/.tar.gz archives) as "
                     "`grade-all --single PATH ... LAB ...` does, the other options given handed on (grade-all's "
                     "help says what it does: rubric scores, results in results/class/, kept until the files or "
                     "options change)")
    p.add_argument("--work-dir", metavar="DIR",
                   help="with --submission: grade-all's --work-dir (where submissions are staged and built)")
    add_compile_timeout(p, "with --submission: ")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run every runner (and compile every submission) without bubblewrap, "
                   "which is used by default when bwrap starts here; the output and every report "
                   "then say 'not sandboxed'")
    p.add_argument("--sanitize", choices=SANITIZER_TOOLS, metavar="TOOL",
                   help="check every GPU variant under compute-sanitizer --tool TOOL (memcheck, "
                   "racecheck, synccheck or initcheck; quick sizes, no timing) in the same sandbox, "
                   "and report what it finds per variant (results/sanitize/); needs a GPU")
    p.add_argument("--emulate", action="store_true",
                   help="no GPU needed: build each lab's emulated runner (its CUDA compiled for the CPU through "
                   "HIP-CPU; about a minute of compile per lab, once) and check the GPU variants on the CPU, each under three "
                   "orders of a block's threads (a missing __syncthreads() shows). A pass reads 'pass (emulated)': "
                   "not timed, and it cannot show speed, races between blocks or memory-model effects. The quick "
                   "sizes unless --sizes says otherwise, and each GPU kernel in the first of its configurations (-s256-b8, "
                   "-b16x16: the lab's table order) unless --variants names others. The default on a machine "
                   "without a CUDA device (for your files; with --solution, for the reference)")
    p.add_argument("--no-emulate", action="store_true",
                   help="without a CUDA device, leave the GPU variants 'not run'")
    p.add_argument("--full", action="store_true",
                   help="without a CUDA device too: every size and timing of the CPU steps, for a report (there, "
                   "the default is --quick; with a GPU, the full sweep is the default); emulated GPU steps "
                   "are still checked on the quick sizes")
    p.add_argument("--retime-reference", action="store_true",
                   help="time the reference solution and the kit's own rows (cpu-sequential, ...) again: by "
                   "default the kit's rows are timed once per machine and build, and the reference only where your report "
                   "timed a row to compare, each row kept under the build folder and reused while the GPU and "
                   "its driver, the CPU, the build and these options are the same (the summary says when and "
                   "where it was timed)")
    p.add_argument("--plots", action="store_true",
                   help="also draw the timing plots of the reports (results/plots/, as `labkit plot` does; "
                   "needs matplotlib)")
    p.add_argument("--json", metavar="FILE", help="also write every report in one JSON file")
    p.add_argument("--csv", metavar="FILE", help="also write one CSV row per variant and size")
    slurm = p.add_argument_group(
        "Slurm (on a cluster's login node: --slurm runs this same grading, the other options as given, as a "
        "job on a compute node (a GPU node by default); it shows the job's state and the grader's lines as "
        "they come, and brings the reports into results/ when the job has finished; a failed, cancelled or "
        "timed-out job leaves results/ as it was)")
    add_slurm_options(slurm, positive(int), "grade on a cluster node through Slurm (sbatch) instead of here",
                      "the job", gres="gpu:1")
    slurm.add_argument("--stage-dir", metavar="DIR",
                       help="Slurm (set by the --slurm job): write into DIR/results/ what would go into results/, "
                       "then DIR/finished.json when the grading has finished")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser(
        "grade-all", parents=[common, grading], help="instructor: score a class of submissions with the rubrics",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grades every submission (a folder or a .zip/.tar.gz archive) directly in "
        "SUBMISSIONS_DIR, scores it with each lab's rubric (labs/<lab>/kit/rubric.toml) and writes "
        "<out>/results/<name>.json per submission, then <out>/gradebook.csv (one row per student), "
        "<out>/junit.xml, <out>/gradescope/<name>/results.json and <out>/feedback/<name>.md|.json. "
        "A lab's files are taken from its folder in the submission (<lab>/FILE at any depth; with one "
        "lab graded, also FILE at the top); the feedback names the path used for each. "
        "Builds of the next submissions run on the CPU while the GPU grades; an interrupted run "
        "resumes where it stopped." + unlisted,
        epilog="Examples:\n  ./labkit grade-all subs/ --no-perf --jobs 4\n"
        "  ./labkit grade-all subs/ integral_image --roster roster.csv\n"
        "  ./labkit grade-all subs/ --slurm --partition gpu --account cs149 --gres gpu:1\n"
        "  ./labkit grade-all --single alice.zip\n"
        "Exit status: 0 when every submission (with --single, every one named) has full points, 1 otherwise, "
        "2 for a usage error.")
    p.add_argument("paths", nargs="*", metavar="SUBMISSIONS_DIR [LAB ...]",
                   help="the folder of submissions, then the labs to grade (default: all); with "
                   "--single, only labs")
    p.add_argument("--single", action="append", metavar="PATH",
                   help="grade this submission (a folder or an archive) instead of a folder of them; "
                   "repeat it for several, each one's table printed (`grade LAB --submission PATH ...` is this)")
    p.add_argument("--out", metavar="DIR", help="the class folder (default: results/class)")
    p.add_argument("--jobs", type=positive(int), metavar="N",
                   help=f"build slots, and correctness gradings at once (default here: {default_jobs()})")
    p.add_argument("--force", action="store_true", help="regrade submissions already graded")
    p.add_argument("--roster", metavar="CSV", help="folder name -> student id, name, email (see gradebook --help)")
    p.add_argument("--rubric-dir", metavar="DIR",
                   help="rubrics <DIR>/<lab>.toml to use instead of the labs' own")
    p.add_argument("--work-dir", metavar="DIR", help="where submissions are staged and built, outside the kit "
                   "(default: ${XDG_CACHE_HOME:-~/.cache}/labkit/<hash of the kit's path>/submissions)")
    add_compile_timeout(p)
    p.add_argument("--no-sandbox", action="store_true", help="compile and run submissions without bubblewrap")
    p.add_argument("--sanitize", choices=SANITIZER_TOOLS, metavar="TOOL",
                   help="also check each submission's GPU variants under compute-sanitizer --tool TOOL "
                   "(memcheck, racecheck, synccheck or initcheck) on the quick sizes, in the sandbox; a "
                   "variant it finds errors in costs its group the rubric's [sanitizer] penalty; needs a GPU")
    p.add_argument("--task-index", type=int, metavar="I", help="Slurm: grade submissions I, I+N, ... only")
    p.add_argument("--task-count", type=positive(int), metavar="N", help="Slurm: how many tasks share the class")
    p.add_argument("--prebuilt-slot", metavar="DIR",
                   help="Slurm (set by the job script): the build slot grade-all --slurm prepared, with the kit's "
                   "objects built once; each new build slot starts as a copy of it, and --build-dir is only "
                   "checked, never built")
    slurm = p.add_argument_group("Slurm (--slurm builds the kit once, here, then writes a job array, one task per --chunk "
                                 "submissions, and sbatch's it; the tasks build only the submissions)")
    add_slurm_options(slurm, positive(int), "grade on a Slurm cluster instead of here", "each task")
    slurm.add_argument("--chunk", type=positive(int), default=1, metavar="K", help="submissions per task (default 1)")
    slurm.add_argument("--dry-run", action="store_true", help="write the job script, do not submit it")
    p.set_defaults(func=cmd_grade_all)

    p = sub.add_parser(
        "gradebook", parents=[common], help="rebuild the class's gradebook, Gradescope and feedback files",
        description="Reads the results that grade-all wrote (<out>/results/*.json: finished files "
        "only, so it can run while a class run is still adding results) and writes "
        "<out>/gradebook.csv (one row per student, for the LMS), <out>/junit.xml, "
        "<out>/gradescope/<name>/results.json and <out>/feedback/<name>.md and .json.")
    p.add_argument("--out", default="results/class", metavar="DIR",
                   help="the class folder, as given to grade-all --out (default: %(default)s)")
    p.add_argument("--roster", metavar="CSV",
                   help="the students: a CSV with a header naming each one's submission folder "
                   "(folder, submission, login or username) and optionally id, name and email; the "
                   "gradebook then follows it, with a row for each student who handed nothing in")
    p.set_defaults(func=cmd_gradebook)

    p = sub.add_parser(
        "gradescope-bundle", parents=[common], help="write the zip of a Gradescope autograder",
        description="Writes the zip of a Gradescope 'zip file upload' autograder: setup.sh (installs "
        "the kit's packages, then ./labkit setup and build), run_autograder (grades "
        "/autograder/submission with grade-all --single and always leaves results.json) and the kit, "
        "reference solution included, under source/.")
    p.add_argument("--out", default="dist/gpu-labkit-gradescope.zip", metavar="FILE.zip",
                   help="the zip to write (default: %(default)s)")
    p.add_argument("--labs", metavar="LAB,...", help="grade only these labs (default: all)")
    p.add_argument("--no-perf", action="store_true",
                   help="check correctness only: no timing (Gradescope's machines have no GPU)")
    p.set_defaults(func=cmd_gradescope_bundle)

    p = sub.add_parser(
        "rehearse", parents=[common], help="instructor: grade a class made from the kit's own material, against what each must get",
        description="Makes a class from the kit's own material (the solution whole and in part, the labs' "
        "broken kernels and cheats, the corpus's hostile entries, archives and misfiled files), each "
        f"with what a grader must give it ({rel(MANIFEST)}), grades it with ./labkit grade-all as an "
        f"instructor would (timing on; --sanitize {SANITIZER} where there is a GPU), and reports per "
        "submission the expected and the actual points and verdicts, where the time went, how long the GPU "
        "sat idle and how stable two gradings of the same submission are. A second call resumes. "
        "Exit status 1 when any submission got other than it must.")
    p.add_argument("labs", nargs="*", metavar="LAB", help="the labs to rehearse (default: all); one a call keeps each call short")
    p.add_argument("--out", metavar="DIR", help=f"the class, its grading and the report (default: {REHEARSAL_OUT}); "
                   "keep it between calls to resume")
    p.add_argument("--jobs", type=positive(int), metavar="N", help="grade-all's --jobs (default: grade-all's)")
    p.add_argument("--work-dir", metavar="DIR", help="grade-all's --work-dir")
    p.add_argument("--no-sanitize", action="store_true", help=f"no --sanitize {SANITIZER}, also on a GPU")
    p.add_argument("--no-perf", action="store_true", help="correctness only: no timing, no performance points")
    speed = p.add_mutually_exclusive_group()
    speed.add_argument("--quick", action="store_true", help=f"the default: grade-all --quick --sizes {QUICK_SIZES} "
                       f"--threads {QUICK_LEAST_THREADS},N (one timing per variant and thread count, N the "
                       "cores grade-all times on; the large sizes the kit's bugs need)")
    speed.add_argument("--full", action="store_true", help="grade-all's own defaults: every size, every timing")
    p.add_argument("--sizes", metavar="SIZES", help="grade-all's --sizes instead")
    p.add_argument("--cpu-only", action="store_true", help="only the submissions whose checks show without a GPU")
    p.add_argument("--gpu-only", action="store_true", help="only the submissions there for what a GPU shows, and those checked on both (the twins)")
    p.add_argument("--sample", action="store_true", help="only the small class of the manifest's sample entries (what CI grades)")
    p.add_argument("--limit", type=positive(int), metavar="N", help="at most the first N submissions of each lab")
    p.add_argument("--no-grade", action="store_true", help="grade nothing: judge the results already in --out")
    p.add_argument("--manifest", metavar="FILE", help=f"another manifest (default: {rel(MANIFEST)})")
    p.set_defaults(func=cmd_rehearse)

    p = sub.add_parser("run", parents=[common], help="run one variant on an image",
                       description="Runs VARIANT of LAB on IMG and writes a picture of the result as a "
                       "PNG (and the raw values with --raw). Options of a lab's own picture are handed "
                       "to the lab's grader; integral_image has --radius R (default 8): the input beside "
                       "its box blur of radius R, computed from the table; convolution has --filter SPEC "
                       "(default gaussian:5; e.g. box:7, gaussian:sigma=2.0,size=9, sharpen:5, edge:3, "
                       "laplacian:5, file:my.txt) and --border zero|replicate|mirror (default mirror).")
    add_lab_and_variant(p, "the variant to run")
    p.add_argument("--input", required=True, metavar="IMG", help="input image (PNG, JPEG, ...)")
    p.add_argument("--output", required=True, metavar="OUT.png", help="output image")
    p.add_argument("--raw", metavar="FILE", help="also write the raw output values")
    p.add_argument("--solution", action="store_true", help="use the reference build")
    p.add_argument("--timeout", type=positive(float), metavar="SEC",
                   help="kill it after SEC seconds without progress (default: the grader's, 60)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", parents=[common], help="time the kit's variants next to NPP, PyTorch and OpenCV",
                       description="With --peers: for each lab, the kit's variants (all, or --variants) checked "
                       "on the quick sizes and timed by the lab's grader (the table keeps each step's fastest), then "
                       "the libraries present here timed by tools/bench_alternatives.py (NPP, PyTorch, "
                       "OpenCV; each checked against the lab's contract first, a missing one noted, never "
                       "guessed), in one run. Prints per size each one's time, its ratio to the kit's "
                       "fastest GPU variant and its % of copy bandwidth on the lab's floor (its contract's "
                       "minimal bytes per pixel); writes results/bench/<lab>-peers.md and .json. "
                       "The CPU rows run on every core unless --threads. "
                       f"The peers are timed --runs times (default {PEER_RUNS})." + unlisted)
    p.add_argument("labs", nargs="*", metavar="LAB", help="labs to bench (default: all)")
    p.add_argument("--peers", action="store_true",
                   help="time the peers beside the kit's variants (required: the kit's own timings alone are "
                   "`./labkit grade`'s)")
    p.add_argument("--sizes", default=DEFAULT_SIZES, metavar="N,...", help="square sizes (default: %(default)s)")
    add_grader_options(p, spec, leave_out=BENCH_SETS)
    p.add_argument("--student", action="store_true", help="time your variants, not the reference solution's")
    p.add_argument("--no-sandbox", action="store_true", help="run the runner without bubblewrap")
    p.add_argument("--out", metavar="DIR", help="where the tables and reports go (default: results/bench)")
    p.add_argument("--page", metavar="FILE", help="also write the results page of this run (docs/results.md is "
                   "written so: the machine, its clocks, the command, and every lab's table)")
    p.add_argument("--render", metavar="DIR", help="run nothing: write --page FILE again from the reports of the "
                   "bench run in DIR (its --out), e.g. after a change to how the tables are drawn")
    p.add_argument("--resume", action="store_true",
                   help="go on with the bench run in --out (the same command, another call: e.g. after a time "
                   "limit stopped it): its finished labs are kept, the others run, and the page names both")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "profile", parents=[common], help="one GPU variant's kernels under Nsight Compute (ncu)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Profiles one GPU variant at one size: the lab's grader checks it on the quick sizes and "
        "times it (its time and % of copy bandwidth, as grade gives them), then ncu watches one more timed "
        "run of it and prints, per kernel of that run (its launches summed): ncu's time, DRAM throughput (% of "
        "peak and GB/s), achieved and theoretical occupancy, registers and block size, shared-memory "
        "wavefronts per instruction and bank conflicts, and the largest warp stall reasons. The same table "
        "as Markdown goes to results/profile/<lab>-<variant>-<label>-<size>[-<params>].md. Your build by default; --solution: "
        "the reference's. Needs a CUDA device and ncu (Nsight Compute, part of the CUDA toolkit), with "
        "permission to read the GPU's counters; each missing one is named.",
        epilog="Examples:\n  ./labkit profile integral_image gpu-02-kogge-stone-s1024-b8\n"
        "  ./labkit profile convolution gpu-03-tiled-b16x16 --params k=25 --raw\n"
        "  ./labkit profile histogram_equalization gpu-02-privatized-ks-b256 --solution --size 4096\n"
        "The grader's check runs in the sandbox as grade's does; the run under ncu does not (ncu starts the "
        "runner itself).\nExit status: 0 when profiled, 1 when it could not be (said why), 2 for a usage error.")
    add_lab_and_variant(p, "a GPU variant of it")
    p.add_argument("--size", type=positive(int), metavar="N", help=f"the square image size (default {PROFILE_SIZE})")
    p.add_argument("--params", metavar="LABEL", help="the timed parameters, for a lab that has them (convolution: "
                   "k=3, ..., k=25; default: the lab's first, as grade --quick times)")
    p.add_argument("--solution", action="store_true", help="profile the reference's build, not yours")
    p.add_argument("--raw", action="store_true", help="keep ncu's report (.ncu-rep, for Nsight Compute's window) "
                   "and its CSV in results/profile/")
    p.add_argument("--no-sandbox", action="store_true", help="the grader's check and timing without bubblewrap")
    p.set_defaults(func=cmd_profile)

    p = sub.add_parser("plot", parents=[common], help="draw the timing plots of the grader's reports",
                       description="Draws, for each report (default: results/<lab>-student.json and "
                       "-solution.json, as `grade` writes them) and each timed exercise, pattern and "
                       "parameter, up to three PNGs on log-scaled axes: time vs image size, speedup vs the reference "
                       "(cpu-sequential), and % of measured copy bandwidth for the GPU variants. Needs "
                       "matplotlib (the distribution's python3-matplotlib); without it, says how to get it.")
    p.add_argument("labs", nargs="*", metavar="LAB", help="labs whose reports to draw (default: all found)")
    p.add_argument("--reports", nargs="+", metavar="JSON", help="these grader reports instead")
    p.add_argument("--peers", metavar="JSON",
                   help="also draw the libraries `./labkit bench LAB --peers` timed: its "
                   "results/bench/<lab>-peers.json (marked as a separate run)")
    p.add_argument("--out", metavar="DIR", help="where the PNGs go (default: results/plots)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("list", parents=[common], help="list the variants of each lab",
                       description="Prints the variants of each lab (or of LAB) in teaching order.")
    p.add_argument("lab", nargs="?", metavar="LAB")
    p.add_argument("--files", action="store_true", help="also list the files students edit")
    p.add_argument("--solution", action="store_true", help="ask the reference build")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("datasets", parents=[common], help="generate test images",
                       description="Runs build/datasets/generate_dataset for every pattern and "
                       "size; files are named <pattern>-<W>x<H>.png.")
    p.add_argument("--sizes", default=TIMED_SIZES, metavar="N|WxH,...",
                   help="image sizes (default: %(default)s)")
    p.add_argument("--patterns", default="random,zeros,full,gradient,checkerboard,low-contrast,skewed",
                   help="patterns to draw (default: %(default)s)",
                   metavar="P,...")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="seed of the random patterns (default: %(default)s)")
    p.add_argument("--photo", default="", metavar="IMAGE|DIR",
                   help="the image the photo pattern mirrors to each size, or a folder's first (default: the "
                   "first of datasets/photos, as grade --perf-patterns photo)")
    p.add_argument("--out", default="datasets/generated", metavar="DIR",
                   help="folder for the images (default: %(default)s)")
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser("test", parents=[common], help="run the kit's own tests",
                       description="Builds, runs `meson test --print-errorlogs`, and ends with "
                       "one line 'N passed, M failed, K skipped'. Exit 1 when a test failed or "
                       "none passed. GPU tests skip (exit 77) without a CUDA device.")
    p.add_argument("--cpu-only", action="store_true", help="only the 'cpu' suite")
    p.add_argument("--gpu", action="store_true",
                   help="the GPU acceptance run: every GPU test and the class rehearsal's GPU part, on a GPU "
                        f"node, within {GPU_BUDGET_S // 60} minutes (docs/contributing.md); fails where there is no GPU")
    p.add_argument("--suite", action="append", metavar="NAME",
                   help="only this meson suite (a lab name, cpu, gpu); repeatable. Builds only what its tests "
                        "depend on (a lab's suite: that lab's targets)")
    p.add_argument("-j", "--jobs", type=int, help="parallel build jobs")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("dist", parents=[common], help="write and verify the student tarball",
                       description="Packs the tracked files without solutions/, the tests "
                       "that need the reference (labs/*/kit/tests/reference/) and .ci/, then "
                       "unpacks the tarball in a temporary folder and runs setup, build, test and "
                       "grade there.")
    p.add_argument("--out", default="dist/gpu-labkit-student.tar.gz", metavar="FILE")
    p.add_argument("--no-verify", action="store_true", help="only write the tarball")
    p.add_argument("--cpu-only", action="store_true",
                   help="verify with -Dcuda=disabled and the cpu suite (faster)")
    p.add_argument("-j", "--jobs", type=int, help="parallel build jobs while verifying")
    p.set_defaults(func=cmd_dist)
    return parser


def as_grade_all(args, grade_all):
    """The words of grade-all that `grade LAB... --submission PATH...` stands for: `grade-all
    --single PATH ... -- LAB ...`, every other option given handed on as given (slurm.forwarded_args,
    through grade's own parser in args.command_parser); one that grade-all does not have is refused."""
    theirs = {a.dest for a in grade_all._actions}
    alien = [w for w in forwarded_args(args, left_out=theirs | {"submission"}) if w.startswith("--")]
    if alien:
        raise UsageError(f"grade --submission: {', '.join(alien)}: not an option of a class run (grade "
                         "--submission is grade-all --single PATH ...; see ./labkit grade-all --help)")
    singles = [w for path in args.submission for w in ("--single", path)]
    return ["grade-all", *forwarded_args(args, left_out={"help", "submission"}), *singles, "--", *args.labs]


def _quiet_stdout():
    """After a broken pipe (./labkit list | head): point stdout at /dev/null, so that the
    interpreter's last flush at exit does not complain about the pipe as well."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def add_grader_options(parser, spec, leave_out=()):
    """The grader's options (grader_cli.add_options) in a group of their own, or, without a
    built grader to read them from, a note that says how to see them."""
    if spec:
        group = parser.add_argument_group("the grader's options (its own: handed to it as given, its help below)")
        grader_cli.add_options(group, spec, leave_out)


def add_lab_and_variant(parser, variant_help):
    """LAB VARIANT, of the commands about one variant (run, profile)."""
    parser.add_argument("lab", metavar="LAB", help="the lab, e.g. integral_image (./labkit list shows them)")
    parser.add_argument("variant", metavar="VARIANT", help=f"{variant_help} (./labkit list LAB shows them)")


def add_compile_timeout(parser, when=""):
    """--compile-timeout, of grade-all (and so of grade --submission)."""
    parser.add_argument("--compile-timeout", type=positive(float), metavar="SEC",
                        help=f"{when}wall-clock limit of a submission's compile, its student files of every "
                        "lab together (the kit's own objects are not counted); past it, the labs not yet "
                        f"built are build-error, saying why (default: {COMPILE_TIMEOUT_S} s). Each compile "
                        f"also gets -fconstexpr-ops-limit={CONSTEXPR_OPS_LIMIT}")


def positive(kind):
    """An argparse type: a finite number above 0, with a message that says so."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def _guarded(run):
    """run(), with the ways it can fail reported in one line each."""
    try:
        return run()
    except UsageError as e:
        say(f"labkit: {e}")
        return 2
    except LabkitError as e:
        say(f"labkit: {e}")
        return 1
    except KeyboardInterrupt:
        say("\nlabkit: interrupted")
        return 130
    except BrokenPipeError:
        raise  # nothing can be said on that pipe any more: main() handles it
    except OSError as e:  # a file or folder that cannot be written, read or made
        say(f"labkit: {e}")
        return 1
    except Exception as e:  # a bug: still one line, and the traceback in a log
        log = RESULTS / "labkit-error.log"
        try:
            write_atomic(log, traceback.format_exc())
            where = f"details in {rel(log)}"
        except OSError:
            where = "LABKIT_TRACEBACK=1 shows where"
        if os.environ.get("LABKIT_TRACEBACK"):
            traceback.print_exc()
        say(f"labkit: internal error: {e.__class__.__name__}: {e} ({where})")
        return 1


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    # kill (SIGTERM) or a closed terminal (SIGHUP) ends labkit as Ctrl-C does: the grader or
    # build it is waiting for is killed with its process group, never left running orphaned.
    # A signal already ignored (nohup) stays ignored.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _interrupt)

    def run():
        given = list(sys.argv[1:] if argv is None else argv)
        parser = make_parser(grader_cli.spec_for(given))
        if given in ([], ["help"]):  # ./labkit alone lists the commands, as --help does
            parser.print_help()
            return 0 if given else 2
        # `run` hands options it does not know to the lab's grader (a lab's picture options,
        # e.g. --radius), which checks them; every other command takes only its own.
        args, extra = parser.parse_known_args(argv)
        if extra and args.command == "grade-all" and not any(e.startswith("-") for e in extra):
            args.paths += extra  # lab names after the options: grade-all subs/ --no-perf integral_image
            extra = []
        if extra and args.command != "run":
            parser.parse_args(argv)  # the usual "unrecognized arguments" message, exit 2
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        if args.command == "grade" and args.submission:  # one class path: grade-all's
            args.command_parser = commands["grade"]
            args = parser.parse_args(as_grade_all(args, commands["grade-all"]))
        args.extra = extra
        # The command's own parser: what it was given is handed on by it (slurm.forwarded_args).
        args.command_parser = commands[args.command]
        return args.func(args)

    try:
        return _guarded(run)
    except BrokenPipeError:  # the reader went away, even while an error was being reported
        _quiet_stdout()
        return 1
    except KeyboardInterrupt:  # a second Ctrl-C while the first one was being reported
        return 130
