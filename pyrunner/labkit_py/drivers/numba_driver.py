"""Numba's CUDA target (numba-cuda): DeviceNDArray buffers, cuda.event. With `simulate`, Numba's
CUDA simulator (NUMBA_ENABLE_CUDASIM) runs the kernels on the CPU: CI grades this driver's
variants on small cases without a GPU. The simulator has no events: timings are not taken there."""
import os

import numpy as np

PACKAGE = "numba-cuda"


class Driver:
    name = "numba"

    def __init__(self, simulate=False):
        if simulate:
            os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # read when numba.cuda is first imported
        if not hasattr(np, "row_stack"):
            # numba-cuda (0.30.4 and older) registers np.row_stack, which NumPy 2.5 removed: without
            # the alias, compiling any kernel for a GPU stops with an AttributeError.
            np.row_stack = np.vstack
        from numba import cuda
        self.cuda = cuda
        if not simulate:
            from numba.cuda.cudadrv import driver
            self.memset = driver.device_memset
        self.simulated = simulate
        self._largest = self._result = None  # read_all's reduction, made at its first call
        if not simulate and not cuda.is_available():
            raise RuntimeError("numba.cuda sees no GPU")

    def empty(self, count, dtype):
        return self.cuda.device_array(count, dtype=dtype)

    def fill_bytes(self, flat, byte):
        if self.simulated:
            flat.view(np.uint8)[:] = byte  # the simulator's arrays are numpy arrays
        else:
            self.memset(flat, byte, flat.size * flat.dtype.itemsize)  # in order on the default stream

    def read_all(self, flat):
        """Reads every byte of flat on the device, in order with the kernels (harness.Timer's flush)."""
        if self.simulated:
            flat.max()  # the simulator's arrays are numpy arrays
            return
        if self._largest is None:  # compiled once, outside any timed region
            self._largest = self.cuda.reduce(lambda a, b: max(a, b))
            self._result = self.cuda.device_array(1, dtype=np.int32)
        self._largest(flat.view(np.int32), res=self._result)  # on the default stream, no wait for the host

    def zero(self, array):
        self.fill_bytes(array, 0)

    def window(self, flat, start, shape):
        count = int(np.prod(shape))
        return flat[start:start + count].reshape(shape)

    def to_host(self, array, out=None):
        return array.copy_to_host(out) if out is not None else array.copy_to_host()

    def to_device(self, array, host):
        array.copy_to_device(np.ascontiguousarray(host))

    def pinned(self, shape, dtype):
        return self.cuda.pinned_array(shape, dtype=dtype)

    def event(self):
        return self.cuda.event()

    def record(self, event):
        event.record()

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return self.cuda.event_elapsed_time(start, stop)

    def synchronize(self):
        self.cuda.synchronize()
