"""PyCUDA: GPUArray buffers, pycuda.driver.Event, a context made by pycuda.autoinit."""
import numpy as np

PACKAGE = "pycuda"


class Driver:
    name = "pycuda"
    simulated = False

    def __init__(self, simulate=False):
        import pycuda.driver as cuda
        import pycuda.gpuarray as gpuarray
        import pycuda.autoinit  # noqa: F401  (one context on device 0, popped at exit)
        self.cuda, self.gpuarray = cuda, gpuarray

    def empty(self, count, dtype):
        return self.gpuarray.empty(count, dtype=dtype)

    def fill_bytes(self, flat, byte):
        self.cuda.memset_d8(flat.gpudata, byte, flat.nbytes)

    def read_all(self, flat):
        """Reads every byte of flat on the device, in order with the kernels (harness.Timer's flush)."""
        self.gpuarray.max(flat.view(np.int32))

    def zero(self, array):
        self.cuda.memset_d8(array.gpudata, 0, array.nbytes)

    def window(self, flat, start, shape):
        count = int(np.prod(shape))
        return flat[start:start + count].reshape(shape)

    def to_host(self, array, out=None):
        if out is None:
            return array.get()
        self.cuda.memcpy_dtoh(out, array.gpudata)
        return out

    def to_device(self, array, host):
        self.cuda.memcpy_htod(array.gpudata, np.ascontiguousarray(host))

    def pinned(self, shape, dtype):
        return self.cuda.pagelocked_empty(shape, dtype)

    def event(self):
        return self.cuda.Event()

    def record(self, event):
        event.record()

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return stop.time_since(start)

    def synchronize(self):
        self.cuda.Context.synchronize()
