#include "gpu_pipeline.hpp"

#include <cstring>
#include <vector>

#include "compare.hpp"

namespace integral_image {
namespace {

template <class T>
void poison(const labkit::DeviceImage<T>& image, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(image.data(), kPoisonByte, image.allocated() * sizeof(T), stream));
}

// Downloads the whole allocation and looks for anything but poison in the guard space.
template <class T>
std::string guard_hit(const labkit::DeviceImage<T>& image, const std::string& what, cudaStream_t stream) {
    std::vector<T> all(image.allocated());
    CUDA_CHECK(cudaMemcpyAsync(all.data(), image.data(), all.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    T poison_value;
    std::memset(&poison_value, kPoisonByte, sizeof poison_value);
    const auto hit = grader::find_guard_write(all, image.width(), image.height(), image.pitch(), poison_value);
    if (!hit.hit) return "";
    return what + " wrote outside its " + std::to_string(image.width()) + "x" + std::to_string(image.height()) +
           " buffer, at (x=" + std::to_string(hit.x) + ", y=" + std::to_string(hit.y) + ")" +
           (hit.y == image.height() ? " past the last row" : " in the row padding");
}

}  // namespace

PipelineRunner::PipelineRunner(int width, int height)
    : in_(width, height), rows_(width, height), flipped_(height, width), columns_(height, width), out_(width, height) {}

void PipelineRunner::load(Input host) {
    poison(in_, stream());
    poison_outputs();
    labkit::upload(host, in_, stream());
    stream_.synchronize();
}

void PipelineRunner::load_async(Input pinned_host) { labkit::upload(pinned_host, in_, stream()); }

void PipelineRunner::poison_outputs() {
    poison(rows_, stream());
    poison(flipped_, stream());
    poison(columns_, stream());
    poison(out_, stream());
}

void PipelineRunner::run(const Pipeline& p) {
    labkit::GpuContext ctx{stream(), &workspace_};
    events_[0].record(stream());
    p.scan_first(in_.cview(), rows_.view(), p.tuning, ctx);
    events_[1].record(stream());
    p.transpose(rows_.cview(), flipped_.view(), p.tuning, ctx);
    events_[2].record(stream());
    p.scan_second(flipped_.cview(), columns_.view(), p.tuning, ctx);
    events_[3].record(stream());
    p.transpose(columns_.cview(), out_.view(), p.tuning, ctx);
    events_[4].record(stream());
}

void PipelineRunner::download(Output host) {
    labkit::download(out_, host, stream());
    stream_.synchronize();
}

void PipelineRunner::download_async(Output pinned_host) { labkit::download(out_, pinned_host, stream()); }

std::array<double, kPasses> PipelineRunner::pass_ms() {
    std::array<double, kPasses> ms{};
    for (int i = 0; i < kPasses; ++i) ms[i] = labkit::elapsed_ms(events_[i], events_[i + 1]);
    return ms;
}

double PipelineRunner::total_ms() { return labkit::elapsed_ms(events_[0], events_[kPasses]); }

std::string PipelineRunner::guard_report() {
    for (const auto& [image, what] : {std::pair{&rows_, "pass 1 (scan rows)"}, std::pair{&flipped_, "pass 2 (transpose)"},
                                      std::pair{&columns_, "pass 3 (scan rows)"}, std::pair{&out_, "pass 4 (transpose back)"}}) {
        if (auto hit = guard_hit(*image, what, stream()); !hit.empty()) return hit;
    }
    return "";
}

TransposeRunner::TransposeRunner(int width, int height) : in_(width, height), out_(height, width) {}

void TransposeRunner::load(View<const std::uint32_t> host) {
    poison(in_, stream());
    poison_output();
    labkit::upload(host, in_, stream());
    stream_.synchronize();
}

void TransposeRunner::poison_output() { poison(out_, stream()); }

void TransposeRunner::run(const TransposeVariant& v) {
    labkit::GpuContext ctx{stream(), &workspace_};
    start_.record(stream());
    v.transpose(in_.cview(), out_.view(), v.tuning, ctx);
    stop_.record(stream());
}

double TransposeRunner::ms() { return labkit::elapsed_ms(start_, stop_); }

void TransposeRunner::download(View<std::uint32_t> host) {
    labkit::download(out_, host, stream());
    stream_.synchronize();
}

std::string TransposeRunner::guard_report() { return guard_hit(out_, "the transpose", stream()); }

}  // namespace integral_image
