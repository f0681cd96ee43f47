"""Lab 1's Python track: the integral image as a Kogge-Stone row scan and a tiled transpose, twice,
driven from Python by PyCUDA, CuPy and Numba (python/ in the lab; the handout's "Python track").
The runner of pyrunner reads this (the pixel types and output sizes it takes from the
grader's `contract`); the grader lists these rows beside the native ones."""

EXERCISE = "integral_image"
ENTRY = "integral_image"   # each driver file defines compile(source) and integral_image(kernels, ctx, image, table)
KERNELS = "01_kernels.cu"  # the CUDA C that PyCUDA and CuPy compile at run time (Numba's kernels are Python)

# name, driver, student file, summary (teaching order)
VARIANTS = [
    ("pycuda-02-kogge-stone", "pycuda", "02_pycuda.py", "Kogge-Stone rows + tiled transpose, x2: PyCUDA SourceModule"),
    ("cupy-02-kogge-stone", "cupy", "03_cupy.py", "Kogge-Stone rows + tiled transpose, x2: CuPy RawModule"),
    ("numba-02-kogge-stone", "numba", "04_numba.py", "Kogge-Stone rows + tiled transpose, x2: Numba kernels in Python"),
]

