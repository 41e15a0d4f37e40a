#pragma once
// One block of the normalised 32-point Sylvester-Hadamard transform, shared by the CPU (numerics/Hadamard.cpp) and
// the CUDA kernel (numerics/cuda/Hadamard.cu): both run these operations in this order, so they give the same bits.
// Plain C++ that nvcc compiles for the device too; only adds, subtractions and a final multiply, so no FMA
// contraction can change a result.

#if defined(__CUDACC__)
#define CCSIM_HOST_DEVICE __host__ __device__
#else
#define CCSIM_HOST_DEVICE
#endif

namespace ccsim::numerics {

/// Five butterfly stages on v[0..32) (h = 1, 2, 4, 8, 16), then the 1/sqrt(32) norm as one fp32 constant (not
/// rsqrtf, whose result may differ in the last bit).
CCSIM_HOST_DEVICE inline void hadamard_block(float* v)
{
  for (int h = 1; h < 32; h *= 2)
    for (int i = 0; i < 32; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        const float a = v[j], c = v[j + h];
        v[j]          = a + c;
        v[j + h]      = a - c;
      }
  const float norm = 0.17677669529663687f; // 1 / sqrt(32)
  for (int i = 0; i < 32; ++i)
    v[i] *= norm;
}

} // namespace ccsim::numerics
