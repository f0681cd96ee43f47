"""Timing images: the kit's own generator (common/generators.cpp) through ctypes, so that an image
made here is byte for byte the one the grader makes again from the same seed to check the output."""
import ctypes

import numpy as np


class Generator:
    def __init__(self, library):
        self._lib = ctypes.CDLL(library)
        self._lib.labkit_generate.restype = ctypes.c_int
        self._lib.labkit_generate.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_uint64,
                                              ctypes.c_void_p]
        self._lib.labkit_use_photo.restype = ctypes.c_int
        self._lib.labkit_use_photo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]

    def use_photo(self, gray):
        """The photo pattern's photo (labkit::use_photo): a dense (height, width) uint8 array."""
        gray = np.ascontiguousarray(gray, dtype=np.uint8)
        if self._lib.labkit_use_photo(gray.ctypes.data, gray.shape[1], gray.shape[0]) != 0:
            raise ValueError("--photo: an empty photo")

    def gray(self, pattern, width, height, seed):
        image = np.empty((height, width), dtype=np.uint8)
        if self._lib.labkit_generate(pattern.encode(), width, height, seed, image.ctypes.data) != 0:
            raise ValueError(f"--patterns: no pattern '{pattern}' (or 'photo' without --photo)")
        return image
