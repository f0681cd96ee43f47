"""Nsight Compute's numbers for `labkit profile`: the metrics asked for (one table, each with its
meaning in a line), ncu's CSV read back, the launches of the one timed run picked out, and each
kernel's launches summed into one row.

ncu writes its details page as CSV, one row per metric of each profiled launch:
  "ID","Process ID",...,"Kernel Name",...,"Section Name","Metric Name","Metric Unit","Metric Value"
values with thousands separators ("1,234.5") and units it scales ("usecond", "Gbyte/second")."""

import csv
import io
import re
from dataclasses import dataclass

# How a kernel's launches make one row: "sum" adds them up (times, counts); "weighted" is their
# average weighted by each launch's duration (rates, percentages); "launch" is a launch setting
# (registers, block size): its distinct values, several when the launches differ.
SUM, WEIGHTED, LAUNCH = "sum", "weighted", "launch"
DURATION = "gpu__time_duration.sum"

# Every stall reason the GPU has (their names differ between architectures, so asked by pattern):
# warps stalled on it per instruction issued; a reason's share of their sum is its share of the
# stalls. "selected" is a warp issuing, not a stall.
STALL_PREFIX, STALL_SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
STALL_RE = re.compile(re.escape(STALL_PREFIX) + r"(\w+?)" + re.escape(STALL_SUFFIX))
NOT_STALLS = {"selected"}
TOP_STALLS = 4  # the largest reasons shown per kernel


@dataclass(frozen=True)
class Column:
    title: str
    metrics: tuple  # ((ncu metric, how its launches combine), ...)
    meaning: str
    cell: object  # (values of its metrics in order, all of the row's metrics) -> text


def _fixed(value, digits=1, scale=1.0):
    return "—" if value is None else f"{value * scale:.{digits}f}"


def _count(value):
    return "—" if value is None else f"{value:,.0f}"


def _per(part, whole):
    """part / whole to two decimals, or — where there is no whole (no such instruction)."""
    return "—" if not whole or part is None else f"{part / whole:.2f}"


def _settings(values):
    return "—" if not values else "/".join(f"{v:.0f}" for v in values)


def _stalls(metrics):
    return ", ".join(f"{r} {s:.0%}" for r, s in stall_shares(metrics)[:TOP_STALLS]) or "—"


# The table `labkit profile` prints, one column each: the ncu metrics it reads (the one list of
# the metrics asked for, with the stall reasons' pattern) and what it means, in a line. What the
# handouts discuss: DRAM throughput, occupancy, stall reasons and shared-memory bank conflicts,
# with the launch settings that explain the occupancy.
COLUMNS = (
    Column("ncu ms", ((DURATION, SUM),),
           "the kernels' time under ncu, at base clocks with caches flushed: longer than the timed run",
           lambda v, m: _fixed(v[0], 3, 1e3)),
    Column("DRAM % of peak", (("dram__throughput.avg.pct_of_peak_sustained_elapsed", WEIGHTED),),
           "DRAM throughput as a % of the GPU's peak", lambda v, m: _fixed(v[0])),
    Column("DRAM GB/s", (("dram__bytes.sum.per_second", WEIGHTED),),
           "DRAM bytes read and written per second", lambda v, m: _fixed(v[0], 0, 1e-9)),
    Column("occupancy % (theoretical)", (("sm__warps_active.avg.pct_of_peak_sustained_active", WEIGHTED),
                                         ("sm__maximum_warps_per_active_cycle_pct", WEIGHTED)),
           "warps active on an SM as a % of the most it holds; in brackets the most that the block size, "
           "registers and shared memory allow", lambda v, m: f"{_fixed(v[0], 0)} ({_fixed(v[1], 0)})"),
    Column("regs", (("launch__registers_per_thread", LAUNCH),), "registers per thread", lambda v, m: _settings(v[0])),
    Column("block", (("launch__block_size", LAUNCH),), "threads per block", lambda v, m: _settings(v[0])),
    Column("smem wavefronts/instr ld, st", (("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", SUM),
                                            ("smsp__sass_inst_executed_op_shared_ld.sum", SUM),
                                            ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", SUM),
                                            ("smsp__sass_inst_executed_op_shared_st.sum", SUM)),
           "shared-memory wavefronts per warp-wide load and store: 1.00 is conflict-free for 4-byte words "
           "(8-byte: 2, 16-byte: 4); more are bank conflicts", lambda v, m: f"{_per(v[0], v[1])}, {_per(v[2], v[3])}"),
    Column("bank conflicts ld, st", (("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", SUM),
                                     ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", SUM)),
           "ncu's count of shared-memory bank conflicts (extra wavefronts) of loads and stores",
           lambda v, m: f"{_count(v[0])}, {_count(v[1])}"),
    Column("top stalls (share of stalls)", (),
           f"why warps waited: the {TOP_STALLS} largest stall reasons, each as a share of all stalled warp-cycles "
           f"(ncu's {STALL_PREFIX}*{STALL_SUFFIX})", lambda v, m: _stalls(m)),
)
HOW = {name: how for c in COLUMNS for name, how in c.metrics}

# A kernel whose launches delimit the timed run: the harness's L2 flush (common/l2_flush.cu), launched
# before each timed run and never in the warm-up. With --runs 1 the runner makes: the warm-up,
# flush, the timed kernels-only run, flush, the end-to-end run. The launches between the first two
# flushes are the timed run's.
FLUSH_KERNEL = "read_sweep"

UNIT_SCALE = {"": 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
TIME_UNITS = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0, "ns": 1e-9, "us": 1e-6, "ms": 1e-3,
              "s": 1.0}


def metric_option():
    """ncu's --metrics value: every metric of the table, and the stall reasons by pattern."""
    return ",".join(list(HOW) + ["regex:" + re.escape(STALL_PREFIX) + ".*" + re.escape(STALL_SUFFIX)])


def number(text, unit):
    """A value of ncu's CSV in base units (seconds, bytes, bytes/second, %), or None ("n/a", "")."""
    text = (text or "").strip().replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None
    unit = (unit or "").strip()
    if unit in TIME_UNITS:
        return value * TIME_UNITS[unit]
    m = re.fullmatch(r"([numKMGT]?)(byte|B)(/s(?:econd)?)?", unit)
    if m:
        return value * UNIT_SCALE[m.group(1)]
    return value


def short_name(kernel):
    """A kernel's name without return type, namespaces and parameters: 'void ns::scan<256>(View<...>)' -> 'scan<256>'."""
    name = re.sub(r"^void\s+", "", kernel.strip())
    depth, cut = 0, len(name)
    for i in range(len(name) - 1, -1, -1):  # the parameter list: the last (...) at template depth 0
        c = name[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                cut = i
                break
    name = name[:cut] if cut > 0 else name
    depth, start = 0, 0
    for i, c in enumerate(name):  # the last '::' outside template arguments ("ns::<unnamed>::k" too)
        depth = max(0, depth + (c == "<") - (c == ">"))
        if depth == 0 and name.startswith("::", i):
            start = i + 2
    return name[start:] or kernel


def parse_csv(text):
    """[{"id", "kernel", "metrics": {ncu name: value in base units}}] in launch order, from ncu's
    CSV (lines before its header, e.g. "==PROF==", skipped). Raises ValueError when there is none."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        raise ValueError("no CSV header in ncu's output")
    launches = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if not (row.get("ID") or "").isdigit() or not row.get("Metric Name"):  # ncu's own lines after it
            continue
        launch = launches.setdefault(row["ID"], {"id": int(row["ID"]), "kernel": row.get("Kernel Name", ""),
                                                 "metrics": {}})
        value = number(row.get("Metric Value"), row.get("Metric Unit"))
        if value is not None:
            launch["metrics"][row["Metric Name"]] = value
    return sorted(launches.values(), key=lambda l: l["id"])


def timed_run(launches):
    """The launches of the timed run: those between the first two flushes (FLUSH_KERNEL). Raises
    ValueError when the profile does not have them."""
    flushes = [i for i, l in enumerate(launches) if short_name(l["kernel"]) == FLUSH_KERNEL]
    if len(flushes) < 2:
        raise ValueError(f"ncu saw {len(flushes)} of the harness's two L2 flushes ({FLUSH_KERNEL}), "
                         "so the timed run cannot be told apart")
    chosen = launches[flushes[0] + 1:flushes[1]]
    if not chosen:
        raise ValueError("the timed run launched no kernel")
    return chosen


def stall_shares(metrics):
    """[(reason, share of stalls)] of one launch's (or kernel's) metrics, largest first."""
    reasons = {m.group(1): v for name, v in metrics.items() if (m := STALL_RE.fullmatch(name))
               and m.group(1) not in NOT_STALLS}
    total = sum(reasons.values())
    return sorted(((r, v / total) for r, v in reasons.items()), key=lambda x: -x[1]) if total > 0 else []


def aggregate(launches):
    """One row per kernel, in order of first launch: {"kernel", "launches", "metrics": {ncu name:
    value}}, summed or weighted by duration as COLUMNS says (stall reasons weighted); a LAUNCH
    metric is the sorted list of its distinct values. With more than one kernel, a last row
    "(all kernels)" over every launch."""
    groups = {}
    for l in launches:
        groups.setdefault(short_name(l["kernel"]), []).append(l)
    rows = [_combine(name, ls) for name, ls in groups.items()]
    if len(rows) > 1:
        rows.append(_combine("(all kernels)", launches))
    return rows


def _combine(name, launches):
    weights = [l["metrics"].get(DURATION, 0) for l in launches]
    total_weight = sum(weights)
    names = {n for l in launches for n in l["metrics"]}
    out = {}
    for n in names:
        values = [(l["metrics"][n], w) for l, w in zip(launches, weights) if n in l["metrics"]]
        how = HOW.get(n, WEIGHTED)  # the stall reasons: weighted
        if how == SUM:
            out[n] = sum(v for v, _ in values)
        elif how == LAUNCH:
            out[n] = sorted({v for v, _ in values})
        else:
            weight = sum(w for _, w in values)
            out[n] = (sum(v * w for v, w in values) / weight if weight > 0
                      else sum(v for v, _ in values) / len(values))
    return {"kernel": name, "launches": len(launches), "metrics": out, "duration_s": total_weight}



def table(rows):
    """(header, cells) of the aggregated rows (aggregate()), for print_table or a Markdown table."""
    header = ["kernel", "launches"] + [c.title for c in COLUMNS]
    return header, [[r["kernel"], str(r["launches"])] + [c.cell([r["metrics"].get(n) for n, _ in c.metrics], r["metrics"])
                                                          for c in COLUMNS] for r in rows]


def legend():
    """One line per column: what it shows."""
    return [f"{c.title}: {c.meaning}" for c in COLUMNS]
