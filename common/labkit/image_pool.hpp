// The device side of a pipeline, beyond its input and output: intermediate images that the
// harness poisons and guard-checks like the output, and the clock that times named stages.
// A lab's pipeline composition asks the pool for its buffers and marks the end of each stage;
// the harness does the rest, the same way for every lab. CUDA builds only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "labkit/device_buffer.hpp"
#include "labkit/gpu_context.hpp"
#include "labkit/gpu_timing.hpp"

namespace labkit {

// The digest (labkit/digest.hpp) of a pitched image on the device. Waits for the stream.
std::uint64_t device_digest(const void* data, std::size_t elem_size, int width, int height, std::size_t pitch,
                            cudaStream_t stream);

template <class T>
std::uint64_t device_digest(const DeviceImage<T>& image, cudaStream_t stream) {
    return device_digest(image.data(), sizeof(T), image.width(), image.height(), image.pitch(), stream);
}

// Fills every byte of an image's allocation, guard space included, with `byte`.
template <class T>
void poison(const DeviceImage<T>& image, unsigned char byte, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(image.data(), byte, image.allocated() * sizeof(T), stream));
}

// "" when nothing but `byte` is found in the guard space; else where the stray write landed.
// Waits for the stream.
std::string guard_report(const void* data, std::size_t elem_size, int width, int height, std::size_t pitch,
                         unsigned char byte, const std::string& what, cudaStream_t stream);

template <class T>
std::string guard_report(const DeviceImage<T>& image, unsigned char byte, const std::string& what,
                         cudaStream_t stream) {
    return guard_report(image.data(), sizeof(T), image.width(), image.height(), image.pitch(), byte, what, stream);
}

class ImagePool {
public:
    explicit ImagePool(unsigned char poison_byte) : poison_byte_(poison_byte) {}

    // The image of this slot, (re)allocated when its size changed and then poisoned. `what`
    // names it in guard reports ("pass 2 (transpose)").
    template <class T, class Slot>
    const DeviceImage<T>& get(Slot slot, int width, int height, const std::string& what, cudaStream_t stream) {
        auto& entry = entries_[static_cast<int>(slot)];
        auto* typed = dynamic_cast<Entry<T>*>(entry.get());
        if (!typed || typed->image.width() != width || typed->image.height() != height) {
            entry.reset();  // free the old buffer before allocating the new one
            auto fresh = std::make_unique<Entry<T>>(width, height);
            typed = fresh.get();
            entry = std::move(fresh);
            typed->poison(poison_byte_, stream);
        }
        typed->what = what;
        return typed->image;
    }

    void poison_all(cudaStream_t stream);
    std::string guard_report_all(cudaStream_t stream);  // the first stray write, or ""

private:
    struct EntryBase {
        virtual ~EntryBase() = default;
        virtual void poison(unsigned char byte, cudaStream_t stream) = 0;
        virtual std::string guard(unsigned char byte, cudaStream_t stream) = 0;
        std::string what;
    };
    template <class T>
    struct Entry : EntryBase {
        Entry(int w, int h) : image(w, h) {}
        void poison(unsigned char byte, cudaStream_t stream) override { labkit::poison(image, byte, stream); }
        std::string guard(unsigned char byte, cudaStream_t stream) override {
            return guard_report(image, byte, what, stream);
        }
        DeviceImage<T> image;
    };
    unsigned char poison_byte_;
    std::map<int, std::unique_ptr<EntryBase>> entries_;
};

// Events at the start of a run and at the end of each stage the pipeline marks.
class StageClock {
public:
    void start(cudaStream_t stream);
    void mark(cudaStream_t stream);    // the end of the next stage
    void finish(cudaStream_t stream);  // after the run: marks its end if the pipeline marked nothing
    int stages() const { return used_ - 1; }
    std::vector<double> stage_ms();  // waits for the last mark
    double total_ms();               // from the start to the last mark

private:
    std::vector<std::unique_ptr<CudaEvent>> events_;
    int used_ = 0;
};

// What a pipeline composition calls after each stage; a no-op when nobody is timing.
inline void end_stage(const GpuContext& ctx) {
    if (ctx.stages) ctx.stages->mark(ctx.stream);
}

}  // namespace labkit
