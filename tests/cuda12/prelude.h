// Force-included (-include) by tests/cuda12/compile.py into every clang compile of a kit .cu file,
// after clang's own CUDA wrapper (__clang_cuda_runtime_wrapper.h), which includes cuda_runtime.h.

// 1. Proof that this compile sees the CUDA 12 tree laid out from wheels.txt and nothing else:
//    compile.py passes the CUDART_VERSION it read from that tree's cuda_runtime_api.h.
#if !defined(CUDART_VERSION) || CUDART_VERSION / 1000 != 12 || CUDART_VERSION != LABKIT_EXPECTED_CUDART_VERSION
#error "tests/cuda12: this compile does not see the CUDA 12 headers of tests/cuda12/wheels.txt"
#endif

// 2. What clang's wrapper leaves out and nvcc has: the wrapper skips CUDA's sm_32_intrinsics.h, whose
//    __ldg and __funnelshift_* it defines with builtins of its own, and loses with it the cache-hint
//    loads and stores (__ldcg, __ldcs, __stcg, __stwt, ...). Include CUDA 12's own header, with its
//    definitions of clang's names renamed away, so that those functions exist exactly as CUDA 12
//    declares them (a cache hint CUDA 12 lacks still fails).
#pragma push_macro("__ldg")
#pragma push_macro("__funnelshift_l")
#pragma push_macro("__funnelshift_lc")
#pragma push_macro("__funnelshift_r")
#pragma push_macro("__funnelshift_rc")
#define __ldg __labkit_cuda12_unused_ldg
#define __funnelshift_l __labkit_cuda12_unused_funnelshift_l
#define __funnelshift_lc __labkit_cuda12_unused_funnelshift_lc
#define __funnelshift_r __labkit_cuda12_unused_funnelshift_r
#define __funnelshift_rc __labkit_cuda12_unused_funnelshift_rc
#undef __SM_32_INTRINSICS_H__    // defined by clang's __clang_cuda_intrinsics.h to keep CUDA's header out
#undef __SM_32_INTRINSICS_HPP__
#include <sm_32_intrinsics.h>
#pragma pop_macro("__funnelshift_rc")
#pragma pop_macro("__funnelshift_r")
#pragma pop_macro("__funnelshift_lc")
#pragma pop_macro("__funnelshift_l")
#pragma pop_macro("__ldg")
