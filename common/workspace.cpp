#include <map>

#include "labkit/device_buffer.hpp"
#include "labkit/gpu_context.hpp"

namespace labkit {

struct Workspace::Impl {
    std::map<int, DeviceBuffer<unsigned char>> buffers;
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;

void* Workspace::get_bytes(int slot, std::size_t bytes) {
    auto& buffer = impl_->buffers[slot];
    if (buffer.bytes() < bytes) buffer = DeviceBuffer<unsigned char>(bytes);
    return buffer.data();
}

}  // namespace labkit
