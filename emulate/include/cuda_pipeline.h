// The emulated build's <cuda_pipeline.h>: the primitives of asynchronous global-to-shared copies
// (cp.async, sm_80). On the CPU each copy is done at once, which CUDA allows (a copy may land
// any time before the wait that covers it): a kernel that reads its shared memory before
// __pipeline_wait_prior is therefore not caught here, only on a GPU.
#pragma once

#include <cstddef>
#include <cstring>

inline void __pipeline_memcpy_async(void* dst_shared, const void* src_global, std::size_t bytes,
                                    std::size_t src_zero_fill = 0) {
    std::memcpy(dst_shared, src_global, bytes - src_zero_fill);
    std::memset(static_cast<char*>(dst_shared) + (bytes - src_zero_fill), 0, src_zero_fill);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(std::size_t) {}
