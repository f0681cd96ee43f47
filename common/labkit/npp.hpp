// NPP as the labs' peers call it (labs/*/kit/peers.cu, where the build found NPP: LABKIT_HAVE_NPP):
// the stream context every _Ctx function takes, and one check that throws on a failed call.
// NPP 13 no longer fills the context itself (nppGetStreamContext is gone), so it is filled here
// from the device's attributes, as NPP's documentation asks.
#pragma once

#include <npp.h>

#include <array>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "labkit/cuda_check.hpp"

namespace labkit {

// The device's part of the context is read once per device (its attributes do not change), so a
// timed run pays only for the stream's: a call costs no device queries.
inline NppStreamContext npp_context(cudaStream_t stream) {
    constexpr int kMaxDevices = 64;
    static std::array<std::optional<NppStreamContext>, kMaxDevices> devices;
    static std::mutex lock;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    NppStreamContext c{};
    {
        const std::lock_guard<std::mutex> hold(lock);
        auto& cached = devices.at(static_cast<std::size_t>(device));
        if (!cached) {
            NppStreamContext d{};
            d.nCudaDeviceId = device;
            int shared = 0;
            CUDA_CHECK(cudaDeviceGetAttribute(&d.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, device));
            CUDA_CHECK(cudaDeviceGetAttribute(&d.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, device));
            CUDA_CHECK(cudaDeviceGetAttribute(&d.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, device));
            CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, device));
            CUDA_CHECK(cudaDeviceGetAttribute(&d.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, device));
            CUDA_CHECK(cudaDeviceGetAttribute(&d.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, device));
            d.nSharedMemPerBlock = static_cast<std::size_t>(shared);
            cached = d;
        }
        c = *cached;
    }
    c.hStream = stream;
    CUDA_CHECK(cudaStreamGetFlags(stream, &c.nStreamFlags));
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
