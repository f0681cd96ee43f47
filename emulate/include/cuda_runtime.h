// The emulated build's <cuda_runtime.h>: the runtime API (cuda_runtime_api.h beside it); the
// kernel language (__global__, threadIdx, __syncthreads, atomics) comes with HIP-CPU.
#pragma once
#include "cuda_runtime_api.h"
