// CUDA's runtime API on the CPU, for `grade --emulate`: the names the kit and the labs use, mapped
// onto HIP-CPU (third_party/hip-cpu). Only the emulated build has this folder on its include
// path, ahead of any CUDA toolkit; student files are unchanged (emulate/translate.py rewrites
// only their launches and their `extern __shared__` arrays, at build time).
//
// Every launch runs to completion before it returns (a CPU has no use for asynchrony and the
// kit takes no timings from an emulated run), so a stream is only a name here and every
// stream-ordered call is synchronous.
#pragma once

#include <hip/hip_runtime.h>

// HIP-CPU marks kernels and device functions `simd` (GCC then compiles a vector clone of each,
// warns about every view parameter and doubles the compile time) and kernels `flatten`: neither
// helps a correctness run. Plain functions instead.
#undef __global__
#define __global__
#undef __device__
#define __device__
#define __align__(n) __attribute__((aligned(n)))

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <limits>
#include <algorithm>
#include <atomic>
#include <tuple>
#include <utility>

#include "labkit/gpu_limits.hpp"  // the launch limits the emulated device reports

// ---- Types and constants ------------------------------------------------------------------------
struct CUstream_st;                   // labkit/gpu_context.hpp names streams by this type, as CUDA does
using cudaStream_t = CUstream_st*;
using cudaEvent_t = hipEvent_t;
using cudaError_t = hipError_t;
inline constexpr cudaError_t cudaSuccess = hipSuccess;
inline constexpr cudaError_t cudaErrorInvalidConfiguration = hipErrorInvalidConfiguration;
inline constexpr cudaError_t cudaErrorInvalidValue = hipErrorInvalidValue;
inline constexpr cudaError_t cudaErrorLaunchFailure = hipErrorLaunchFailure;

using cudaMemcpyKind = hipMemcpyKind;
inline constexpr cudaMemcpyKind cudaMemcpyHostToHost = hipMemcpyHostToHost;
inline constexpr cudaMemcpyKind cudaMemcpyHostToDevice = hipMemcpyHostToDevice;
inline constexpr cudaMemcpyKind cudaMemcpyDeviceToHost = hipMemcpyDeviceToHost;
inline constexpr cudaMemcpyKind cudaMemcpyDeviceToDevice = hipMemcpyDeviceToDevice;
inline constexpr cudaMemcpyKind cudaMemcpyDefault = hipMemcpyDefault;
inline constexpr unsigned cudaStreamNonBlocking = 1;

enum cudaDeviceAttr {
    cudaDevAttrMultiProcessorCount,
    cudaDevAttrL2CacheSize,
    cudaDevAttrMaxSharedMemoryPerBlockOptin,
};
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize,
    cudaFuncAttributePreferredSharedMemoryCarveout,
};
inline constexpr int cudaSharedmemCarveoutMaxShared = 100;

namespace labkit::emu {
// What the emulated device reports: the limits of a GPU of compute capability 9.0 (an H100), from
// their one home (gpu_limits.hpp), so that a launch no GPU accepts fails here too.
inline constexpr int kCcMajor = 9, kCcMinor = 0;
inline constexpr int kSms = 4;  // small: only occupancy queries read it
inline constexpr int kMaxThreadsPerBlock = labkit::kMaxThreadsPerBlock;
inline constexpr int kMaxBlockDim[3] = {labkit::kMaxBlockX, labkit::kMaxBlockY, labkit::kMaxBlockZ};
inline constexpr long long kMaxGridDim[3] = {labkit::kMaxGridX, labkit::kMaxGridYZ, labkit::kMaxGridYZ};
inline constexpr std::size_t kDefaultSharedBytes = labkit::kDefaultDynamicSharedBytes;  // without cudaFuncSetAttribute
inline constexpr std::size_t kMaxSharedBytesOptin = labkit::arch_limits(kCcMajor * 10 + kCcMinor).max_shared_optin;
inline constexpr std::size_t kL2Bytes = 50u << 20;
}  // namespace labkit::emu

struct cudaDeviceProp {
    char name[256];
    int multiProcessorCount;
    int major, minor;
    std::size_t totalGlobalMem;
    int l2CacheSize;
    std::size_t sharedMemPerBlockOptin;
};

// ---- Errors -----------------------------------------------------------------------------------
namespace labkit::emu {
inline thread_local cudaError_t last_error = cudaSuccess;

inline cudaError_t record(cudaError_t e) {
    if (e != cudaSuccess && last_error == cudaSuccess) last_error = e;
    return e;
}
// A block the scheduler had to abandon (threads waiting at barriers none can pass) is a launch
// failure, reported at the next call, as a GPU reports a fault.
inline cudaError_t kernel_status() {
    return ::hip::detail::block_error().load() ? record(cudaErrorLaunchFailure) : cudaSuccess;
}
}  // namespace labkit::emu

inline cudaError_t cudaGetLastError() {
    labkit::emu::kernel_status();
    return std::exchange(labkit::emu::last_error, cudaSuccess);
}
inline cudaError_t cudaPeekAtLastError() {
    labkit::emu::kernel_status();
    return labkit::emu::last_error;
}
inline const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
        case hipSuccess: return "cudaSuccess";
        case hipErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
        case hipErrorInvalidValue: return "cudaErrorInvalidValue";
        case hipErrorLaunchFailure: return "cudaErrorLaunchFailure";
        default: return hipGetErrorName(e);
    }
}
inline const char* cudaGetErrorString(cudaError_t e) {
    if (e == cudaErrorLaunchFailure) {
        if (const char* why = ::hip::detail::block_error().load()) return why;
    }
    return hipGetErrorString(e);
}

// ---- Device -----------------------------------------------------------------------------------
inline cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
    *p = {};
    std::strncpy(p->name, "CPU emulation (HIP-CPU)", sizeof p->name - 1);
    p->multiProcessorCount = labkit::emu::kSms;
    p->major = labkit::emu::kCcMajor;
    p->minor = labkit::emu::kCcMinor;
    p->totalGlobalMem = std::size_t{1} << 32;
    p->l2CacheSize = static_cast<int>(labkit::emu::kL2Bytes);
    p->sharedMemPerBlockOptin = labkit::emu::kMaxSharedBytesOptin;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
    switch (a) {
        case cudaDevAttrMultiProcessorCount: *v = labkit::emu::kSms; break;
        case cudaDevAttrL2CacheSize: *v = static_cast<int>(labkit::emu::kL2Bytes); break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = static_cast<int>(labkit::emu::kMaxSharedBytesOptin); break;
    }
    return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int* v) { *v = 0; return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int* v) { *v = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() {
    hipDeviceSynchronize();
    return labkit::emu::kernel_status();
}

// ---- Memory (the "device" is host memory) -----------------------------------------------------
inline cudaError_t cudaMalloc(void** p, std::size_t n) { return labkit::emu::record(hipMalloc(p, n)); }
inline cudaError_t cudaFree(void* p) { return hipFree(p); }
inline cudaError_t cudaMallocHost(void** p, std::size_t n) { return labkit::emu::record(hipHostMalloc(p, n)); }
inline cudaError_t cudaFreeHost(void* p) { return hipHostFree(p); }
inline cudaError_t cudaMemcpy(void* d, const void* s, std::size_t n, cudaMemcpyKind) {
    std::memcpy(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, std::size_t n, cudaMemcpyKind k, cudaStream_t = nullptr) {
    return cudaMemcpy(d, s, n, k);
}
inline cudaError_t cudaMemcpy2DAsync(void* d, std::size_t dpitch, const void* s, std::size_t spitch, std::size_t w,
                                     std::size_t h, cudaMemcpyKind, cudaStream_t = nullptr) {
    if (w > dpitch || w > spitch) return labkit::emu::record(cudaErrorInvalidValue);
    for (std::size_t y = 0; y < h; ++y)
        std::memcpy(static_cast<char*>(d) + y * dpitch, static_cast<const char*>(s) + y * spitch, w);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void* d, int v, std::size_t n) {
    std::memset(d, v, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* d, int v, std::size_t n, cudaStream_t = nullptr) { return cudaMemset(d, v, n); }
inline cudaError_t cudaMemset2DAsync(void* d, std::size_t pitch, int v, std::size_t w, std::size_t h,
                                     cudaStream_t = nullptr) {
    if (w > pitch) return labkit::emu::record(cudaErrorInvalidValue);
    for (std::size_t y = 0; y < h; ++y) std::memset(static_cast<char*>(d) + y * pitch, v, w);
    return cudaSuccess;
}
// __constant__ is an ordinary global here: its symbol is the variable itself.
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* s, std::size_t n, std::size_t offset = 0,
                                    cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
    if (offset + n > sizeof(T)) return labkit::emu::record(cudaErrorInvalidValue);
    std::memcpy(reinterpret_cast<char*>(&symbol) + offset, s, n);
    return cudaSuccess;
}
template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* s, std::size_t n, std::size_t offset = 0,
                               cudaMemcpyKind k = cudaMemcpyHostToDevice) {
    return cudaMemcpyToSymbolAsync(symbol, s, n, offset, k);
}

// ---- Streams and events ---------------------------------------------------------------------
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
    static char names;  // every stream is the same, synchronous one; any non-null value names it
    *s = reinterpret_cast<cudaStream_t>(&names);
    return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { return hipEventCreate(e); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { return hipEventDestroy(e); }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) { return hipEventRecord(e, nullptr); }
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) { return hipEventSynchronize(e); }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) { return hipEventElapsedTime(ms, a, b); }

// ---- Kernels --------------------------------------------------------------------------------
namespace labkit::emu {
// The dynamic shared memory a launch may ask for: 48 KiB, or the most that cudaFuncSetAttribute
// allowed any kernel (a launch of a deduced template kernel names no address to look up).
inline std::atomic<std::size_t>& shared_limit() {
    static std::atomic<std::size_t> r{kDefaultSharedBytes};
    return r;
}

inline bool valid_launch(const dim3& grid, const dim3& block, std::size_t shared) {
    const long long threads = 1LL * block.x * block.y * block.z;
    const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    if (threads == 0 || threads > kMaxThreadsPerBlock) return false;
    for (int i = 0; i < 3; ++i)
        if (g[i] == 0 || g[i] > kMaxGridDim[i] || b[i] > static_cast<unsigned>(kMaxBlockDim[i])) return false;
    return shared <= shared_limit().load();
}

// The order of a block's threads between barriers (third_party/hip-cpu's block scheduler), as
// `runner check --schedule` names it (grader/protocol/protocol.hpp): in-order (the default), reversed, or
// shuffled:SEED. Set before the first launch. Any other name throws std::invalid_argument: a run
// under another schedule than asked would pass a kernel the asked one fails.
inline void set_schedule(const std::string& s) {
    auto& schedule = ::hip::detail::block_schedule();
    constexpr std::size_t kShuffled = sizeof "shuffled:" - 1;
    if (s == "in-order") {
        schedule = {::hip::detail::Block_order::in_order, 0};
    } else if (s == "reversed") {
        schedule = {::hip::detail::Block_order::reversed, 0};
    } else if (s.rfind("shuffled:", 0) == 0 && s.size() > kShuffled &&
               s.find_first_not_of("0123456789", kShuffled) == std::string::npos) {
        try {
            schedule = {::hip::detail::Block_order::shuffled, std::stoull(s.substr(kShuffled))};
        } catch (const std::out_of_range&) {
            throw std::invalid_argument("--schedule " + s + ": the seed is over 2^64 - 1");
        }
    } else {
        throw std::invalid_argument("--schedule " + s + ": expected in-order, reversed or shuffled:SEED");
    }
}

// What `kernel<<<grid, block, shared, stream>>>(args...)` becomes (emulate/translate.py): checks the
// configuration as CUDA does (an invalid one launches nothing and is the launch's error), then
// runs every block through HIP-CPU and waits for it.
template <class Call, class... Args>
void launch(dim3 grid, dim3 block, std::size_t shared, cudaStream_t, Call call, Args&&... args) {
    if (!valid_launch(grid, block, shared)) {
        record(cudaErrorInvalidConfiguration);
        return;
    }
    ::hip::detail::launch(grid, block, static_cast<std::uint32_t>(shared), nullptr, std::move(call),
                          std::make_tuple(std::forward<Args>(args)...));
    hipDeviceSynchronize();
}
}  // namespace labkit::emu

template <class Kernel>
cudaError_t cudaFuncSetAttribute(Kernel* kernel, cudaFuncAttribute a, int value) {
    if (a != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
    if (value < 0 || static_cast<std::size_t>(value) > labkit::emu::kMaxSharedBytesOptin)
        return labkit::emu::record(cudaErrorInvalidValue);
    auto& limit = labkit::emu::shared_limit();
    for (auto seen = limit.load(); static_cast<std::size_t>(value) > seen && !limit.compare_exchange_weak(seen, value);) {
    }
    return cudaSuccess;
}
// A kernel's attributes: static shared memory and registers are not known to the emulator (its
// blocks' __shared__ variables live on the host), so they read 0; the limits are the device's.
struct cudaFuncAttributes {
    std::size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion;
    int maxDynamicSharedSizeBytes;
};
template <class Kernel>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, Kernel*) {
    *a = {};
    a->maxThreadsPerBlock = labkit::emu::kMaxThreadsPerBlock;
    a->maxDynamicSharedSizeBytes = static_cast<int>(labkit::emu::shared_limit().load());
    return cudaSuccess;
}
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, Kernel*, int block_size, std::size_t) {
    *blocks = block_size > 0 ? std::max(1, 2048 / block_size) : 0;
    return cudaSuccess;
}

// ---- Device functions CUDA has and HIP-CPU names otherwise ------------------------------------
// CUDA's integer and floating-point min and max, callable unqualified in device code.
#define LABKIT_EMU_MINMAX(T)                          \
    inline T min(T a, T b) { return b < a ? b : a; } \
    inline T max(T a, T b) { return a < b ? b : a; }
LABKIT_EMU_MINMAX(int)
LABKIT_EMU_MINMAX(unsigned)
LABKIT_EMU_MINMAX(long long)
LABKIT_EMU_MINMAX(unsigned long long)
LABKIT_EMU_MINMAX(float)
LABKIT_EMU_MINMAX(double)
#undef LABKIT_EMU_MINMAX
// Loads and stores with a cache hint: a plain access here.
#define LABKIT_EMU_CACHE_HINT(load, store)                        \
    template <class T> T load(const T* p) { return *p; }          \
    template <class T> void store(T* p, T v) { *p = v; }
LABKIT_EMU_CACHE_HINT(__ldcg, __stcg)
LABKIT_EMU_CACHE_HINT(__ldcs, __stcs)
LABKIT_EMU_CACHE_HINT(__ldlu, __stwt)
LABKIT_EMU_CACHE_HINT(__ldcv, __stwb)
#undef LABKIT_EMU_CACHE_HINT
template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = warpSize) {
    return ::hip::detail::shuffle(v, src, width, mask);
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
    return ::hip::detail::shuffle_up(v, static_cast<std::int32_t>(delta), width, mask);
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
    return ::hip::detail::shuffle_down(v, static_cast<std::int32_t>(delta), width, mask);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = warpSize) {
    return ::hip::detail::shuffle_xor(v, lane_mask, width, mask);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
    return static_cast<unsigned>(::hip::detail::ballot(predicate, mask)) & mask;
}
// A thread's pause in a spin loop: nothing to wait for on the CPU.
inline void __nanosleep(unsigned) {}
// PRMT: byte i of the result is byte (s >> 4i) & 7 of the 8 bytes of x (0..3) and y (4..7).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { ::hip::detail::Tile::this_tile().warp_barrier(mask); }
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) { return __ballot_sync(mask, !predicate) == 0; }
// The lanes of mask whose value equals this lane's: every lane posts its value in the warp's
// scratchpad (as HIP-CPU's shuffles do), then reads all of them.
template <class T>
unsigned __match_any_sync(unsigned mask, T value) {
    auto& posted = ::hip::detail::Tile::scratchpad<T>();
    posted[id(::hip::detail::Fiber::this_fiber()) % warpSize] = value;  // id: a friend of Fiber (ADL)
    __syncwarp(mask);
    unsigned same = 0;
    for (int lane = 0; lane < warpSize; ++lane)
        if ((mask >> lane & 1u) && posted[lane] == value) same |= 1u << lane;
    __syncwarp(mask);
    return same;
}
