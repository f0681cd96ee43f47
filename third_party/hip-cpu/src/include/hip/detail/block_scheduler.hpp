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
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include <sys/mman.h>

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

        // labkit: the order in which a launch hands its blocks out (position -> block), by the
        // same schedule: blockIdx order, reversed, or shuffled by the seed. A kernel that takes
        // its place in a chain from blockIdx instead of from a counter then fails every time,
        // not only when the OpenMP threads happen to start blocks out of order.
        inline std::vector<std::int64_t> block_launch_order(std::int64_t n)
        {
            std::vector<std::int64_t> order(static_cast<std::size_t>(n));
            std::iota(order.begin(), order.end(), std::int64_t{0});
            const auto& s{block_schedule()};
            if (s.order == Block_order::reversed) {
                std::reverse(order.begin(), order.end());
            }
            else if (s.order == Block_order::shuffled) {
                std::mt19937_64 g{s.seed};
                std::shuffle(order.begin(), order.end(), g);
            }
            return order;
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
            static constexpr std::uint32_t max_threads_{1024u};  // a block's most (hipLaunchKernel's check)
            // Every switch reads the new fiber's saved registers (libco keeps them at the bottom
            // of its stack) and the top of its stack. Stacks laid end to end put the top of
            // stack i and the registers of stack i + 1 in one page, so a 1024-thread block's
            // switches need half as many TLB entries as with a separately allocated stack each;
            // the extra cache line per stack puts each fiber's hot lines in other cache sets
            // than its neighbours' (a 64 KiB stride maps them all to the same sets).
            static constexpr std::size_t stride_{stack_bytes_ + 64u};
            static constexpr std::size_t region_bytes_{max_threads_ * stride_};

            char* stacks_{};  // fiber i's stack starts at stacks_ + i * stride_; address space only until touched
            std::vector<Fiber> fibers_;  // fiber i is thread i (its id, which threadIdx reads)
            std::vector<State> state_;
            std::vector<std::uint32_t> mask_;  // the lanes a thread parked at a warp barrier waits for
            std::vector<std::uint32_t> order_;
            std::uint32_t next_{};  // the position in order_ where this round goes on
            std::uint32_t current_{};
            std::uint32_t live_{};  // threads that have not returned
            std::uint32_t at_syncwarp_{};  // threads parked at a warp barrier
            const std::function<void ()>* kernel_{};

            static void fiber_main_() noexcept
            {
                auto& s{here()};
                while (true) {  // one pass per block that this fiber serves as thread current_
                    (*s.kernel_)();
                    s.state_[s.current_] = State::returned;
                    --s.live_;
                    s.stop_();
                }
            }

            // Starts or resumes the next thread of this round, in the schedule's order, that is
            // ready; false, and no switch, when none is left. A stopping fiber calls it to hand
            // over to that thread directly: going through the main context instead would take
            // two switches per thread and barrier, and the switches are most of the time.
            bool switch_to_next_() noexcept
            {
                while (next_ < order_.size()) {
                    const auto t{order_[next_++]};
                    if (state_[t] != State::ready) continue;
                    current_ = t;
                    Fiber::yield(fibers_[t]);
                    return true;  // this context runs again: resumed later, or run() at round's end
                }
                return false;
            }

            // The current thread stops (parked or returned): the next one runs, or, at the end of
            // the round, run() releases the parked threads.
            void stop_() noexcept
            {
                if (!switch_to_next_()) Fiber::yield(Fiber::main());
            }

            void park_(State why) noexcept
            {
                state_[current_] = why;
                if (why == State::at_syncwarp) ++at_syncwarp_;
                stop_();
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

            void make_fibers_(std::uint32_t n) noexcept
            {
                if (!stacks_) {
                    void* r{mmap(nullptr, region_bytes_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)};
                    if (r == MAP_FAILED) {
                        std::fputs("hip-cpu: no address space for the fibers' stacks\n", stderr);
                        std::abort();
                    }
                    stacks_ = static_cast<char*>(r);
                }
                fibers_.reserve(n);
                while (fibers_.size() < n) {
                    const auto i{static_cast<std::uint32_t>(fibers_.size())};
                    fibers_.push_back(Fiber::make(
                        co_derive(stacks_ + i * stride_, stack_bytes_, &fiber_main_)));
                    fibers_.back().set_id_(i);
                }
            }

            // Forgets the fibers (their stacks are reused by the next ones). A fiber is never
            // deleted: one that is parked inside the kernel has nothing to free but its stack.
            void drop_fibers_() noexcept { fibers_.clear(); }

            // Lets parked threads go on; false when every thread has returned, or none can go on.
            // Called between rounds, when no thread is ready: each has parked or returned.
            bool release_() noexcept
            {
                const auto n{static_cast<std::uint32_t>(state_.size())};
                if (live_ == 0) return false;
                if (at_syncwarp_ == 0) {  // every thread still running waits at __syncthreads
                    // Branch-free so that it vectorizes: this runs once per barrier of the block.
                    for (auto&& s : state_) s = s == State::returned ? s : State::ready;
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
                        if (waiting & (1u << lane)) {
                            state_[base + lane] = State::ready;
                            --at_syncwarp_;
                        }
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
            ~Block_scheduler()
            {
                drop_fibers_();
                if (stacks_) munmap(stacks_, region_bytes_);
            }

            // Runs `kernel` once per thread of a block of n threads (n <= max_threads_); `block`
            // is the block's linear index (it seeds the shuffled order).
            void run(
                std::uint32_t n,
                std::uint64_t block,
                const std::function<void ()>& kernel) noexcept
            {
                (void)Fiber::main();  // the context that a round starts from and ends in
                kernel_ = &kernel;
                make_fibers_(n);
                state_.assign(n, State::ready);
                mask_.assign(n, ~0u);
                live_ = n;
                at_syncwarp_ = 0;
                make_order_(n, block);
                do {  // a round: the ready threads run one after the other, each handing over to the next
                    next_ = 0;
                    (void)switch_to_next_();
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
