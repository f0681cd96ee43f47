/* -----------------------------------------------------------------------------
 * GPU Labkit addition (not upstream; see third_party/hip-cpu/PINNED.md).
 * -------------------------------------------------------------------------- */
// Runs the threads of one block as fibers, in a chosen order, and releases them from their
// barriers the way a GPU does. It replaces upstream's round-robin hand-off (each fiber yielded to
// the next one at every barrier), which needed every thread to reach the same number of
// barriers: a thread that returned early, or a warp that shuffled inside a branch (upstream's
// shuffles were block-wide barriers), made it run threads twice or let others through a barrier.
//
// Here a thread runs until it parks (at __syncthreads, or at a warp barrier: a shuffle, a ballot,
// __syncwarp) or returns. When every thread of the block has parked or returned:
//   - if every thread still running waits at __syncthreads, all of them go on;
//   - else a warp goes on whose waiting lanes' masks name only lanes that wait too (or have
//     returned): a warp barrier of a partial mask needs only those lanes;
//   - else no thread can go on, as on a GPU, where such a block hangs or is undefined: the block
//     is abandoned and block_error() says why.
// Between two releases the runnable threads run one after the other in the schedule's order:
// in order, reversed, or shuffled (seeded, per block). A kernel that reads what another thread
// wrote without a barrier between them sees a different result in some order, so it fails.
#pragma once

#if !defined(__HIP_CPU_RT__)
    #error Private HIP-CPU RT implementation headers must not be included directly.
#endif

#include "fiber.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

namespace hip
{
    namespace detail
    {
        enum class Block_order { in_order, reversed, shuffled };

        struct Block_schedule {
            Block_order order{Block_order::in_order};
            std::uint64_t seed{0};  // shuffled: the same seed gives every block the same order again
        };

        // The schedule of every block of the launches that follow; set it between launches.
        inline Block_schedule& block_schedule() noexcept
        {
            static Block_schedule r{};
            return r;
        }

        // Why a block was abandoned (its threads waited at barriers that none could pass), or null.
        // Sticky until read and cleared by the caller.
        inline std::atomic<const char*>& block_error() noexcept
        {
            static std::atomic<const char*> r{nullptr};
            return r;
        }

        class Block_scheduler final {
            enum class State : std::uint8_t { ready, at_syncthreads, at_syncwarp, returned };
            // A fiber's stack: room for a kernel's locals and the runtime's frames; untouched
            // pages cost no memory.
            static constexpr std::uint32_t stack_bytes_{64u * 1024u};
            static constexpr std::uint32_t lanes_{32u};

            std::vector<Fiber> fibers_;  // fiber i is thread i (its id, which threadIdx reads)
            std::vector<State> state_;
            std::vector<std::uint32_t> mask_;  // the lanes a thread parked at a warp barrier waits for
            std::vector<std::uint32_t> order_;
            std::uint32_t current_{};
            const std::function<void ()>* kernel_{};

            static void fiber_main_() noexcept
            {
                auto& s{here()};
                while (true) {
                    (*s.kernel_)();
                    s.state_[s.current_] = State::returned;
                    Fiber::yield(Fiber::main());
                }
            }

            void park_(State why) noexcept
            {
                state_[current_] = why;
                Fiber::yield(Fiber::main());
            }

            void make_order_(std::uint32_t n, std::uint64_t block)
            {
                order_.resize(n);
                std::iota(order_.begin(), order_.end(), 0u);
                const auto& s{block_schedule()};
                if (s.order == Block_order::reversed) {
                    std::reverse(order_.begin(), order_.end());
                }
                else if (s.order == Block_order::shuffled) {
                    std::mt19937_64 g{s.seed ^ (block * 0x9E3779B97F4A7C15ull)};
                    std::shuffle(order_.begin(), order_.end(), g);
                }
            }

            void drop_fibers_() noexcept
            {
                for (auto&& f : fibers_) co_delete(native_handle(f));
                fibers_.clear();
            }

            // Lets parked threads go on; false when every thread has returned, or none can go on.
            bool release_() noexcept
            {
                const auto n{static_cast<std::uint32_t>(state_.size())};
                bool live{false};
                bool all_at_syncthreads{true};
                for (auto&& s : state_) {
                    if (s == State::returned) continue;
                    live = true;
                    all_at_syncthreads = all_at_syncthreads && s == State::at_syncthreads;
                }
                if (!live) return false;
                if (all_at_syncthreads) {
                    for (auto&& s : state_) if (s != State::returned) s = State::ready;
                    return true;
                }
                bool released{false};
                for (auto base = 0u; base < n; base += lanes_) {
                    std::uint32_t waiting{0}, running{0}, wanted{0};
                    for (auto lane = 0u; lane < lanes_ && base + lane < n; ++lane) {
                        const auto t{base + lane};
                        if (state_[t] == State::returned) continue;
                        running |= 1u << lane;
                        if (state_[t] == State::at_syncwarp) {
                            waiting |= 1u << lane;
                            wanted |= mask_[t];
                        }
                    }
                    if (waiting == 0 || (wanted & running & ~waiting) != 0) continue;
                    for (auto lane = 0u; lane < lanes_ && base + lane < n; ++lane) {
                        if (waiting & (1u << lane)) state_[base + lane] = State::ready;
                    }
                    released = true;
                }
                if (!released) {
                    const char* expected{nullptr};
                    block_error().compare_exchange_strong(expected,
                        "the threads of a block wait at barriers that none of them can pass: "
                        "a __syncthreads() that not every thread of the block reaches, or a warp "
                        "shuffle, vote or __syncwarp() that a lane of its mask does not reach");
                    drop_fibers_();  // they are stuck inside the kernel; new ones replace them
                }
                return released;
            }
        public:
            static Block_scheduler& here() noexcept
            {
                thread_local Block_scheduler r{};
                return r;
            }

            Block_scheduler() = default;
            Block_scheduler(const Block_scheduler&) = delete;
            Block_scheduler& operator=(const Block_scheduler&) = delete;
            ~Block_scheduler() { drop_fibers_(); }

            // Runs `kernel` once per thread of a block of n threads; `block` is the block's
            // linear index (it seeds the shuffled order).
            void run(
                std::uint32_t n,
                std::uint64_t block,
                const std::function<void ()>& kernel) noexcept
            {
                (void)Fiber::main();  // the context every fiber parks back to
                kernel_ = &kernel;
                fibers_.reserve(n);
                while (fibers_.size() < n) {
                    fibers_.push_back(Fiber::make(stack_bytes_, &fiber_main_));
                    fibers_.back().set_id_(static_cast<std::uint32_t>(fibers_.size() - 1));
                }
                state_.assign(n, State::ready);
                mask_.assign(n, ~0u);
                make_order_(n, block);
                do {
                    for (auto t : order_) {
                        if (state_[t] != State::ready) continue;
                        current_ = t;
                        Fiber::yield(fibers_[t]);
                    }
                } while (release_());
            }

            void syncthreads() noexcept { park_(State::at_syncthreads); }

            void syncwarp(std::uint32_t mask) noexcept
            {
                mask_[current_] = mask;
                park_(State::at_syncwarp);
            }
        };
    } // Namespace hip::detail.
} // Namespace hip.
