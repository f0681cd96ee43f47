"""The Python track's runner: the Python side of grader/protocol/protocol.hpp.

The grader starts it, in the same sandbox as the native runner, for the variants a lab's Python
track lists (kit/track.py). Like the native runner it reads the case inputs the grader wrote, runs
one variant, and answers every case with a raw image file; it never sees an expected output or
the reference. Standard library and numpy only; the GPU drivers (PyCUDA, CuPy, Numba) are
imported when a variant needs one, and a missing one makes that variant's rows "skipped".
"""
