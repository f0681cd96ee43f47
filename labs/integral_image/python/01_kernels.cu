// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// Lab 1, Python track: the kernels PyCUDA (02_pycuda.py) and CuPy (03_cupy.py) compile at run time
// (nvcc and NVRTC). The same two steps as the native 02_kogge_stone.cu and 02_transpose_tiled.cu,
// written as extern "C" kernels so that Python finds them by name (C++ would mangle the names).
//
// Changes against the native step: nothing in the algorithm; the launch configuration, the
// scratch images and the order of the passes move to Python.
// Cost: the image is read and written four times (two scans, two transposes): 1 + 4 B/px for the
// first scan, 8 B/px for each later pass (29 B/px in all), against the 5 B/px floor.
// Limits: one block per row, so a row of any width fits; heights up to 2^31 - 1 rows.
// Reference: Kogge & Stone (1973); Harris, Sengupta & Owens, "Parallel Prefix Sum (Scan) with
// CUDA", GPU Gems 3, ch. 39; NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++".
//
// Write these kernels first (steps K1 and K2): the host files only launch them, and a kernel left
// empty runs, does nothing, and shows up as a wrong answer, not as a TODO.
// Keep this file free of #include: NVRTC (CuPy) compiles it without the C++ standard headers.
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

[[maybe_unused]] constexpr int kTile = 32;     // the transpose's tile side: one warp across
[[maybe_unused]] constexpr int kTileRows = 8;  // rows of threads per tile: each thread moves kTile / kTileRows elements

// Inclusive scan of one row per block (row blockIdx.x of in, width elements), blockDim.x elements
// at a time, into the same row of out. Sums wrap modulo 2^32, as the contract says.
template <typename In>
__device__ void scan_row(const In* in, unsigned* out, int width) {
    // Given: one section of the row lives in dynamic shared memory, blockDim.x words (the host
    // sets its size at the launch):
    //   extern __shared__ unsigned section[];
    //
    // TODO(step K1a): find this block's row in `in` and `out` (row-major, `width` elements a
    //   row). Pitfall: blockIdx.x * width is a 32-bit product unless you say otherwise; compute
    //   the offset in size_t, so that no image size can overflow it.
    //
    // TODO(step K1b): walk the row one section (blockDim.x elements) at a time, one element per
    //   thread. Pitfall: in the last section, threads past the end of the row must still take
    //   part in every step and every barrier; give them a value that leaves the sums unchanged.
    //
    // TODO(step K1c): scan the section in shared memory, Kogge-Stone: log2(blockDim.x) steps with
    //   a doubling stride, each thread adding the element `stride` places to its left. Each step
    //   needs two barriers; for each, write a comment saying which race it prevents. Pitfall: a
    //   barrier inside an `if` that not every thread takes is undefined behaviour.
    //
    // TODO(step K1d): write the section to out (inside the row only), adding the running total
    //   of the sections before it (a carry every thread keeps), then add this section's total to
    //   the carry: which thread's element holds it? Is a barrier needed before the next section
    //   overwrites the shared array? Say why in a comment.
}

extern "C" __global__ void scan_rows_u8(const unsigned char* in, unsigned* out, int width) { scan_row(in, out, width); }
extern "C" __global__ void scan_rows_u32(const unsigned* in, unsigned* out, int width) { scan_row(in, out, width); }

// out (width rows of height) = the transpose of in (height rows of width), kTile x kTile at a
// time; blockDim = (kTile, kTileRows), block (bx, by) moves the tile at input column bx * kTile,
// row by * kTile.
extern "C" __global__ void transpose_u32(const unsigned* in, unsigned* out, int width, int height) {
    // TODO(step K2a): a shared tile of kTile x (kTile + 1) elements. Work out, with the bank of
    //   tile[r][c] being (r * row_length + c) % 32, why the extra column makes the column reads
    //   of step K2c conflict-free, and what they cost without it.
    //
    // TODO(step K2b): load the tile along input rows (coalesced: threadIdx.x runs along a row),
    //   each thread kTile / kTileRows elements, kTileRows rows apart. Pitfall: tiles at the right
    //   and bottom edges are partly outside the image; skip those elements. Then one barrier:
    //   say in a comment why it is needed here.
    //
    // TODO(step K2c): store the tile transposed, along output rows (coalesced again), reading the
    //   tile by columns. Pitfall: the edge check is on the output's size now; check that the
    //   slots K2b skipped are exactly those it skips. Compute the element offsets in size_t.
}
