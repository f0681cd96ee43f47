#include "labkit/image_pool.hpp"

#include "labkit/guard.hpp"

#include <cstring>

namespace labkit {

void ImagePool::poison_all(cudaStream_t stream) {
    for (auto& [slot, entry] : entries_) entry->poison(poison_byte_, stream);
}

std::string ImagePool::guard_report_all(cudaStream_t stream) {
    for (auto& [slot, entry] : entries_)
        if (auto hit = entry->guard(poison_byte_, stream); !hit.empty()) return hit;
    return "";
}

void StageClock::start(cudaStream_t stream) {
    used_ = 0;
    mark(stream);
}

void StageClock::mark(cudaStream_t stream) {
    if (used_ == static_cast<int>(events_.size())) events_.push_back(std::make_unique<CudaEvent>());
    events_[used_++]->record(stream);
}

void StageClock::finish(cudaStream_t stream) {
    if (used_ == 1) mark(stream);
}

std::vector<double> StageClock::stage_ms() {
    std::vector<double> ms;
    for (int i = 1; i < used_; ++i) ms.push_back(elapsed_ms(*events_[i - 1], *events_[i]));
    return ms;
}

double StageClock::total_ms() { return used_ > 1 ? elapsed_ms(*events_[0], *events_[used_ - 1]) : 0; }

}  // namespace labkit
