#!/usr/bin/env bash
# One device session's work, in one call: set up offline (third_party/debs/, from ./labkit bundle),
# build for the GPU, then run what STEP names, with every log and report under OUT.
#   tools/gpu_session.sh OUT check [LAB...]   the kit's tests, then each LAB's solution graded
#                                             on the default cases (no timing)
#   tools/gpu_session.sh OUT sandbox [LAB...]  each LAB's solution graded (quick timing) with the
#                                             runner sandboxed and not, twice each, alternating:
#                                             the sandbox's cost in wall time
#   tools/gpu_session.sh OUT perf LAB [grader options...]
#                                             the LAB's solution timed by its grader (JSON, CSV,
#                                             Markdown), e.g. --threads 1,4,16 --perf-params k=3
# The build is reused when the machine still holds it. Prints a short summary last.
set -uo pipefail
out=${1:?OUT folder}; step=${2:?check or perf}; shift 2
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p "$out"
export PYTHONUNBUFFERED=1
if [[ ! -f build/build.ninja ]]; then
    ./labkit setup --offline -- -Dgpu_arch=sm_90 > "$out/setup.log" 2>&1 || { tail -20 "$out/setup.log"; exit 1; }
fi
./labkit build > "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
case "$step" in
  check)
    ./labkit test > "$out/test.log" 2>&1
    for lab in "$@"; do
        ./labkit grade "$lab" --solution --no-perf --seed 2026 > "$out/grade-$lab.log" 2>&1
        cp "results/$lab-solution.json" "$out/" 2>/dev/null
        grep -E "^(cpu|gpu)-" "$out/grade-$lab.log" | awk '{print $1, $4, $5}' | sort | uniq -c | sort -rn | head -5
    done
    grep -E "^[0-9]+ passed" "$out/test.log"
    grep -E "FAIL|TIMEOUT" "$out/test.log" | head -10 ;;
  sandbox)
    bwrap=$(command -v bwrap || echo "$PWD/third_party/root/usr/bin/bwrap")
    for lab in "$@"; do
        for round in 1 2; do
            for mode in "$bwrap" off; do
                start=$(date +%s.%N)
                "build/labs/${lab}_grader" grade --runner "build/labs/${lab}_solution_runner" --label solution \
                    --seed 2026 --quick --sandbox "$mode" --json "$out/$lab-sandbox-$round-$(basename "$mode").json" \
                    > "$out/sandbox-$lab-$round-$(basename "$mode").log" 2>&1
                rc=$?
                end=$(date +%s.%N)
                printf '%s round %d sandbox=%s exit %d wall %.2f s\n' "$lab" "$round" "$(basename "$mode")" "$rc" \
                    "$(python3 -c "print(f'{$end - $start:.2f}')")" | tee -a "$out/sandbox-times.txt"
            done
        done
        grep -h "^Student code" "$out/sandbox-$lab-1-"*.log
    done ;;
  perf)
    lab=${1:?LAB}; shift
    # The grader itself: its options (--threads, --perf-params, ...) pass through as they are.
    "build/labs/${lab}_grader" grade --runner "build/labs/${lab}_solution_runner" --label solution --no-check \
        --seed 2026 --json "$out/$lab-perf.json" --csv "$out/$lab-perf.csv" --markdown "$out/$lab-perf.md" "$@" \
        > "$out/perf-$lab.log" 2>&1
    echo "grader exit $?"
    grep -E "^GPU:" "$out/perf-$lab.log" ;;
  *) echo "unknown step $step"; exit 2 ;;
esac
cat "$out/gpu.txt"
