"""CuPy: cupy.ndarray buffers, cupy.cuda.Event, the legacy default stream."""
import numpy as np

PACKAGE = "cupy-cuda13x"


class Driver:
    name = "cupy"
    simulated = False

    def __init__(self, simulate=False):
        import cupy  # noqa: F401  (ImportError: not installed)
        import cupyx
        self.cp, self.cupyx = cupy, cupyx
        cupy.cuda.runtime.getDeviceCount()  # a CUDA error here is no GPU, not a missing package

    def empty(self, count, dtype):
        return self.cp.empty(count, dtype=dtype)

    def fill_bytes(self, flat, byte):
        flat.view(self.cp.uint8).fill(byte)

    def read_all(self, flat):
        """Reads every byte of flat on the device, in order with the kernels (harness.Timer's flush)."""
        self.cp.amax(flat.view(self.cp.int32))

    def zero(self, array):
        array.fill(0)

    def window(self, flat, start, shape):
        count = int(np.prod(shape))
        return flat[start:start + count].reshape(shape)

    def to_host(self, array, out=None):
        return array.get(out=out)

    def to_device(self, array, host):
        array.set(host)

    def pinned(self, shape, dtype):
        return self.cupyx.empty_pinned(shape, dtype=dtype)

    def event(self):
        return self.cp.cuda.Event()

    def record(self, event):
        event.record()

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return self.cp.cuda.get_elapsed_time(start, stop)

    def synchronize(self):
        self.cp.cuda.Device().synchronize()
