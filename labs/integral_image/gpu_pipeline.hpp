// The host side of every GPU variant, written once: device buffers, the four passes
// (scan rows -> transpose -> scan rows -> transpose back), a CUDA event between passes, output
// poisoning and the guard check. CUDA builds only.
#pragma once

#include <array>
#include <string>

#include "grading.hpp"
#include "integral_image.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/gpu_timing.hpp"

namespace integral_image {

class PipelineRunner {
public:
    PipelineRunner(int width, int height);

    // Fills every buffer (guards included) with the poison, then copies the image in.
    void load(Input host);
    void load_async(Input pinned_host);  // for end-to-end timing: no poisoning, asynchronous
    void poison_outputs();
    void run(const Pipeline& pipeline);  // records an event before and after each pass
    void download(Output host);          // waits for the copy
    void download_async(Output pinned_host);

    std::array<double, kPasses> pass_ms();  // waits for the last pass
    double total_ms();
    // "" when no pass wrote outside its buffer; else which pass, where.
    std::string guard_report();
    cudaStream_t stream() const { return stream_.get(); }

private:
    labkit::DeviceImage<std::uint8_t> in_;
    labkit::DeviceImage<std::uint32_t> rows_;     // pass 1 output, W x H
    labkit::DeviceImage<std::uint32_t> flipped_;  // pass 2 output, H x W
    labkit::DeviceImage<std::uint32_t> columns_;  // pass 3 output, H x W
    labkit::DeviceImage<std::uint32_t> out_;      // pass 4 output, W x H
    labkit::Workspace workspace_;
    labkit::CudaStream stream_;
    std::array<labkit::CudaEvent, kPasses + 1> events_;
};

// The transpose exercise on its own: a W x H uint32 image in, H x W out.
class TransposeRunner {
public:
    TransposeRunner(int width, int height);
    void load(View<const std::uint32_t> host);
    void poison_output();
    void run(const TransposeVariant& variant);
    double ms();
    void download(View<std::uint32_t> host);
    std::string guard_report();
    cudaStream_t stream() const { return stream_.get(); }

private:
    labkit::DeviceImage<std::uint32_t> in_, out_;
    labkit::Workspace workspace_;
    labkit::CudaStream stream_;
    labkit::CudaEvent start_, stop_;
};

}  // namespace integral_image
