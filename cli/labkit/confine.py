"""Control groups for what labkit runs itself: a submission's compile gets one of its own, as
every runner call does in the grader, through the kit's labkit-confine program (grader/grader/cgroup.hpp
holds the one implementation: cgroup v1 and v2, the limits, the clean-up).

Where no group can be made (no root and no delegated group, or LABKIT_CGROUPS=off), the limits
are per uid: every sandbox counts against the same processes, so one submission could starve the
ones graded beside it. labkit then grades one submission at a time (--jobs 1) and every report
says so (the grader's "Student code:" line)."""

import functools
import os
from dataclasses import dataclass

from .proc import capture

CHECK_TIMEOUT_S = 30
# A compile's group: the compilers ninja runs side by side (nvcc starts several programs each),
# and their memory together; a file that makes the compiler read /dev/zero ends here.
COMPILE_PROCESSES = 512
COMPILE_MEMORY_BYTES = 8 << 30


@dataclass(frozen=True)
class Groups:
    """What this machine offers: the labkit-confine program when groups can be made, and the
    one-line description either way."""
    program: str | None
    description: str

    def wrap(self, cmd, processes=COMPILE_PROCESSES, memory_bytes=COMPILE_MEMORY_BYTES):
        """cmd run in a group of its own with these limits; unchanged without groups."""
        if not self.program:
            return list(cmd)
        return [self.program, "--processes", str(processes), "--memory", str(memory_bytes), "--", *map(str, cmd)]


NO_GROUPS = Groups(None, "no control groups")


@functools.lru_cache(maxsize=None)
def groups(program):
    """Groups through program (labkit-confine's path; "" or missing: none), asked once per run."""
    if not program or not os.access(program, os.X_OK):
        return Groups(None, "no control groups: labkit-confine is not built (./labkit build)")
    rc, out, timed_out = capture([program, "--check"], timeout=CHECK_TIMEOUT_S)
    said = (out.strip().splitlines() or [""])[-1]
    if timed_out or rc not in (0, 1) or not said:
        return Groups(None, f"no control groups: {program} --check failed (exit {rc})")
    return Groups(program if rc == 0 else None, said)
