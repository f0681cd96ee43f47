// NPP as the labs' peers call it (labs/*/kit/peers.cu, where the build found NPP: LABKIT_HAVE_NPP):
// the stream context every _Ctx function takes, and one check that throws on a failed call.
// NPP 13 no longer fills the context itself (nppGetStreamContext is gone), so it is filled here
// from the device's attributes, as NPP's documentation asks.
#pragma once

#include <npp.h>

#include <stdexcept>
#include <string>

#include "labkit/cuda_check.hpp"

namespace labkit {

inline NppStreamContext npp_context(cudaStream_t stream) {
    NppStreamContext c{};
    c.hStream = stream;
    CUDA_CHECK(cudaGetDevice(&c.nCudaDeviceId));
    int shared = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, c.nCudaDeviceId));
    CUDA_CHECK(cudaStreamGetFlags(stream, &c.nStreamFlags));
    c.nSharedMemPerBlock = static_cast<std::size_t>(shared);
    return c;
}

// A failed NPP call is the peer's failure (its verdict says which call and NPP's status). A dry
// run (no GPU) has no device for NPP to call: its errors are expected there, as CUDA's are.
inline void npp_check(NppStatus status, const char* call) {
    if (status != NPP_SUCCESS && !dry_run())
        throw std::runtime_error(std::string(call) + ": NPP status " + std::to_string(static_cast<int>(status)) +
                                 (status == NPP_NOT_SUPPORTED_MODE_ERROR ? " (a mode this NPP does not support)" : ""));
}

}  // namespace labkit

// NPP_CHECK(nppiFoo_Ctx(...)): the call's name in the message, as CUDA_CHECK's expression is.
#define NPP_CHECK(expr) ::labkit::npp_check((expr), #expr)
