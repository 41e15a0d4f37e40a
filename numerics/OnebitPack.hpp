#pragma once
// 1-bit sign compression as DeepSpeed's compressed allreduce does it: sign bits packed 8 per byte, first element
// in the most significant bit, x >= 0 (0 and -0.0 included) -> bit 1 -> +1, x < 0 -> bit 0 -> -1: cupy.packbits
// with bitorder 'big' on (sign(x)+1).bool() (docs/design/notes/reference-implementations.md §1.3, deepspeed/runtime/comm/nccl.py
// l.67). These raw-pointer functions are the contract the CUDA twins (numerics/cuda/OnebitPack.cu) mirror.

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

/// Packs the signs of x[0..n) into n/8 bytes; n must be a multiple of 8. Bit 1 = non-negative.
void pack_signs(const float* x, std::size_t n, std::uint8_t* bits);

/// Writes ±scale for each of the n packed signs (bit 1 -> +scale), on `threads` threads split at bytes.
void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out, std::size_t threads);
void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out);

/// scale = ||x||_2 / sqrt(n), the RMS (nccl.py l.66), accumulated in double so it does not depend on n's size.
float onebit_scale(const float* x, std::size_t n);

// 1-bit compression with error feedback (nccl.py l.65–67), one call per step:
//   p = x + e;  scale = ||p||_2 / sqrt(n);  bits = signs(p);  e' = p - scale·sign(p).
// The state kept between calls is not e but the last call's compensated vector c = p and its scale s (issue 49):
// e' = c - s·sign(c) is exactly the expression that would have been stored, so rebuilding it on the fly gives the same
// bits, scales and errors as keeping it, call after call (tests/numerics/OnebitSinglePass_test.cpp holds the bytes
// to the two-pass kernel's on random and edge-case inputs). Then one pass reads x and c and writes c and the signs —
// about 12 bytes per element instead of the 20 of "compute p, read it back, write e" — and the sum of squares runs in
// the same pass (sign(p) does not need the scale; only e' did). Start from c = 0 and s = 0: e = 0.
// The sum of squares adds 8 double lanes (lane j: elements j, j+8, ... in index order), combined
// ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)); each square of a float is exact in double. One thread: that order is serial.

/// The worker step: x (n values, a multiple of 8) is compensated with the error that (compensated, scale) stand for;
/// compensated becomes p and the signs of p go to bits. Returns p's scale, the `scale` of the next call.
float compress_compensated(const float* x, float* compensated, float scale, std::size_t n, std::uint8_t* bits);

/// The server step (nccl.py l.108–114), fused: the average of `workers` workers' packed signs,
///   v = 0 + s_0·sign_0 + s_1·sign_1 + ... (rank order, scaled[w] = scale_w / workers, one fp32 add each),
/// compensated and compressed as compress_compensated does with x = v. worker_bits[w] points at worker w's n/8 bytes.
float compress_average(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                       float* compensated, float scale, std::size_t n, std::uint8_t* bits);

/// The error (compensated, scale) stand for: e = c - scale·sign(c), sign(0) = +1.
void feedback_error(const float* compensated, float scale, std::size_t n, float* error);

} // namespace ccsim::numerics
