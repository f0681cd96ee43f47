"""Lab 2's Python track: histogram equalization as a privatized histogram, a Kogge-Stone scan of
the 256 bins, the LUT and the map, driven from Python by PyCUDA, CuPy and Numba (python/ in the
lab; the handout's "Python track"). The runner of pyrunner reads this (the pixel types and output sizes it takes from the
grader's `contract`); the grader lists
these rows beside the native ones."""

EXERCISE = "histogram_equalization"
ENTRY = "histogram_equalization"  # each driver file defines compile(source) and histogram_equalization(kernels, ctx, image, out)
KERNELS = "01_kernels.cu"  # the CUDA C that PyCUDA and CuPy compile at run time (Numba's kernels are Python)

# name, driver, student file, summary (teaching order)
VARIANTS = [
    ("pycuda-02-privatized", "pycuda", "02_pycuda.py", "privatized histogram + Kogge-Stone scan + LUT map: PyCUDA SourceModule"),
    ("cupy-02-privatized", "cupy", "03_cupy.py", "privatized histogram + Kogge-Stone scan + LUT map: CuPy RawModule"),
    ("numba-02-privatized", "numba", "04_numba.py", "privatized histogram + Kogge-Stone scan + LUT map: Numba kernels in Python"),
]

