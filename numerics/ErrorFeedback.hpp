#pragma once
// Error feedback (error compensation) for any compressor C: before compressing, add what earlier steps failed to
// send; afterwards keep what this step failed to send:
//   p = x + e;  sent = C(p);  e' = p - sent      =>  sent + e' == x + e   (the identity the tests hold it to).
// Used by the naive baselines (1-bit gradient Adam, top-k / random-k LAMB, 1-bit LAMB §3.2) and SLAMB's local
// error compensation. The 1-bit compressor fuses the same steps (numerics/OnebitPack.hpp compress_with_feedback).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

class ErrorFeedback {
public:
  explicit ErrorFeedback(std::size_t n) : error_(n, 0.0f) {}

  /// x += e (in place): x becomes the compensated input p.
  void compensate(float* x) const;
  /// Dense compressor: e = p - sent.
  void update(const float* compensated, const float* sent);
  /// Sparse compressor that sends p exactly at `sent_idx` and nothing elsewhere: e = p with those zeroed.
  void update_sparse(const float* compensated, const std::vector<std::uint32_t>& sent_idx);

  const std::vector<float>& error() const { return error_; }
  std::size_t size() const { return error_.size(); }

private:
  std::vector<float> error_; // fp32, persistent across steps
};

} // namespace ccsim::numerics
