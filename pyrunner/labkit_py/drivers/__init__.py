"""The three ways a Python program drives the GPU, behind one small interface the harness uses
for what is not the student's to write: device buffers, poisoning, copies, events, the L2 flush.

Each driver module defines `PACKAGE` (what `pip` installs) and `Driver`. Student code never sees
a Driver: it gets the driver's own arrays (cupy.ndarray, pycuda GPUArray, numba DeviceNDArray)."""
import importlib

NAMES = ("pycuda", "cupy", "numba")


class Missing(Exception):
    """The driver's package cannot be imported here: its variants are skipped, not failed."""


def load(name, simulate=False):
    if name not in NAMES:
        raise ValueError(f"no Python driver '{name}' (of: {', '.join(NAMES)})")
    module = importlib.import_module(f"{__name__}.{name}_driver")
    try:
        return module.Driver(simulate=simulate)
    except ImportError as e:
        raise Missing(f"{module.PACKAGE} not installed ({e})") from e
