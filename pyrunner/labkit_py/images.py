"""Device images with guard space, poisoned before every run, as the native harness does
(labkit/guard.hpp): an element nobody wrote keeps the poison, and a write outside the image
lands in the guard, where guard_report finds it."""
import numpy as np

GUARD_MIN = 1024  # elements before and after an image: well past a block's worth of overrun


def poison_byte(dtype):
    """protocol::poison_byte: 0xA5 bytes, or 0xFF (a NaN) for floats."""
    return 0xFF if np.dtype(dtype).kind == "f" else 0xA5


class GuardedImage:
    def __init__(self, driver, shape, dtype, what):
        self.driver, self.shape, self.dtype, self.what = driver, tuple(shape), np.dtype(dtype), what
        self.count = int(np.prod(self.shape))
        self.guard = max(GUARD_MIN, self.shape[-1] if self.shape else 1)
        self.byte = poison_byte(dtype)
        self.flat = driver.empty(self.count + 2 * self.guard, self.dtype)
        self.array = driver.window(self.flat, self.guard, self.shape)

    def poison(self):
        self.driver.fill_bytes(self.flat, self.byte)

    def guard_report(self):
        """"" when both guards still hold the poison; else where the first stray write landed."""
        host = self.driver.to_host(self.flat).view(np.uint8)
        size = self.dtype.itemsize
        before = np.flatnonzero(host[:self.guard * size] != self.byte)
        after = np.flatnonzero(host[(self.guard + self.count) * size:] != self.byte)
        dims = "x".join(str(d) for d in reversed(self.shape))
        if before.size:
            n = self.guard - before[-1] // size
            return f"{self.what} wrote outside its {dims} buffer, {n} elements before its start"
        if after.size:
            n = after[0] // size
            return f"{self.what} wrote outside its {dims} buffer, {n} elements past its end"
        return ""


class Scratch:
    """The intermediate images of one image size, by name: made once, poisoned before each run."""

    def __init__(self, driver):
        self.driver, self.images = driver, {}

    def get(self, name, shape, dtype):
        key = (name, tuple(shape), np.dtype(dtype).str)
        if key not in self.images:
            self.images[key] = GuardedImage(self.driver, shape, dtype, f"scratch '{name}'")
            self.images[key].poison()
        return self.images[key].array

    def poison_all(self):
        for image in self.images.values():
            image.poison()

    def guard_report(self):
        for image in self.images.values():
            if hit := image.guard_report():
                return hit
        return ""
