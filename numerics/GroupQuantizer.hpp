#pragma once
// Symmetric group quantization as SDP4Bit implements it (tools/jet_quant_cuda/includes/quantization_utils.h l.73,
// docs/design/notes/reference-implementations.md §7.1): per group of `group` consecutive values,
//   qmax = 2^(b-1) - 1 (7 at 4 bits, 127 at 8 bits),  v = x · (qmax / max|x|),  code = clamp(round(v), ±qmax),
//   stored scale = max|x| / qmax in fp32 (SDP4Bit's "1/scale" param), dequant = code · scale.
// An all-zero group gets scale 0 and codes 0.
//
// Rounding (the CUDA twin numerics/cuda/GroupQuantizer.cu mirrors both bit for bit):
//   NEAREST:    round half to even (CUDA __float2int_rn / rintf), the rounding of DeepSpeed's quantizer (notes §5.1)
//               and of torch.round; SDP4Bit itself has no nearest path.
//   STOCHASTIC: SDP4Bit always rounds stochastically but seeds curand with clock() (§7.1), which is not
//               reproducible; ccsim draws from a counter-based hash of (seed, element index i in the buffer):
//                 z = seed ^ (i · 0x9E3779B97F4A7C15);  z += 0x9E3779B97F4A7C15;
//                 z = (z ^ (z >> 30)) · 0xBF58476D1CE4E5B9;  z = (z ^ (z >> 27)) · 0x94D049BB133111EB;  z ^= z >> 31;
//                 u = (z >> 40) · 2^-24  in [0, 1)            (splitmix64's finaliser; all arithmetic mod 2^64)
//                 code = floor(v) + (u < v - floor(v) ? 1 : 0), then clamp to ±qmax.
//               E[code · scale] = x for |x| <= max|x| (unbiased). The same (seed, i) always gives the same code.
//               The draw is a pure function of (seed, i), so the AVX2 (4 lanes) and AVX-512 (8 lanes, vpmullq) paths
//               evaluate it per lane and give the scalar codes at any vector width or thread count
//               (numerics/SimdLevel.hpp; tests/numerics/SimdPaths_test.cpp, SimdParity_test.cpp, KernelThreads_test.cpp).
//
// Packed wire format (pack_int4 / quantize_groups_packed): 8 bits -> one int8 code per byte; 4 bits -> two
// two's-complement nibbles per byte, element 2k in the HIGH nibble, 2k+1 in the low nibble
// (byte = (q[2k] << 4) | (q[2k+1] & 0xF)), DeepSpeed/SDP4Bit PackedInt4 (notes §5.1); an odd tail fills the low
// nibble with 0. Scales travel as one fp32 per group (group_quantized_bytes in numerics/QuantizedSizes.hpp).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

enum class Rounding { NEAREST, STOCHASTIC };

struct QuantizedGroups {
  int bits = 4;
  std::size_t group = 128;
  std::size_t numel = 0;
  std::vector<std::int8_t> codes; // one per value (packed for the wire by pack_int4 / as int8)
  std::vector<float> scales;      // max|x| / qmax per group (0 for an all-zero group)
  /// Bytes on the wire: codes at `bits` each plus one fp32 per group (numerics/QuantizedSizes.hpp).
  std::uint64_t wire_bytes() const;
};

/// The splitmix64-based uniform draw in [0, 1) used for stochastic rounding (formula in the header comment).
float uniform_draw(std::uint64_t seed, std::uint64_t index);

/// A per-stream seed from a base seed and up to two labels (worker, stage...), so different senders do not draw
/// correlated numbers: splitmix64 finaliser of (seed ^ a·0xD1B54A32D192ED03 ^ b·0x8CB92BA72F3D8DD7).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0);

/// Largest code magnitude at `bits`: 2^(b-1) - 1.
constexpr int max_code(int bits) { return (1 << (bits - 1)) - 1; }

QuantizedGroups quantize_groups(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed = 0);
void dequantize_groups(const QuantizedGroups& q, float* out);

/// Two signed 4-bit codes per byte, the first in the high nibble (DeepSpeed PackedInt4, notes §5.1).
std::vector<std::uint8_t> pack_int4(const std::vector<std::int8_t>& codes);
std::vector<std::int8_t> unpack_int4(const std::vector<std::uint8_t>& packed, std::size_t n);

// ---- Raw-pointer kernel contract (what bench-kernels times and the CUDA twin mirrors; bits is 4 or 8) ----

/// Bytes of packed codes for n values: n at 8 bits, ceil(n/2) at 4 bits.
std::size_t packed_code_bytes(std::size_t n, int bits);
/// Bytes on the wire: packed codes plus one fp32 scale per group (= group_quantized_bytes).
std::uint64_t packed_bytes(std::size_t n, int bits, std::size_t group);

/// Quantizes x[0..n) into `codes` (packed_code_bytes(n, bits)) and `scales` (ceil(n/group) floats).
/// At 4 bits, `group` must be even so a group never splits a byte. `first_index` is the buffer index of x[0] in
/// the stochastic draw u(seed, first_index + i), so a buffer quantized in group-aligned slices draws as a whole —
/// which is how `threads` > 1 splits the work (bit-identical to one thread).
void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                            std::uint64_t seed, std::uint8_t* codes, float* scales, std::uint64_t first_index = 0,
                            std::size_t threads = 1);
/// out[i] = code_i · scale_{i / group}.
void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                              std::size_t group, float* out);
/// out[i] += code_i · scale_{i / group} (the receive-side reduction of an all-to-all, fp32 as in SDP4Bit §7.3).
void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                  std::size_t group, float* out);

} // namespace ccsim::numerics
