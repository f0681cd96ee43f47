// The exceptions every lab shares. The grader turns each into a verdict instead of a crash.
#pragma once

#include <stdexcept>
#include <string>

namespace labkit {

// Thrown by every starter function until the student replaces it. The grader reports TODO.
struct NotImplemented : std::logic_error {
    explicit NotImplemented(const std::string& what) : std::logic_error("not implemented: " + what) {}
};

// A file that cannot be read or written as an image; the message names the file and the reason.
struct ImageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A CUDA runtime call failed; the message carries file, line, error name and expression.
struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A launch that the build's target GPU (in a dry run) or the GPU in use would refuse but a newer
// or larger one would start (more shared memory per block than it gives): a step that needs more
// than this GPU has, which the grader reports as skipped with what it needs, not as an error.
struct NeedsNewerGpu : CudaError {
    using CudaError::CudaError;
};

}  // namespace labkit
