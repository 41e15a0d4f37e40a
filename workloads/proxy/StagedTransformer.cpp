// Stage-wise forward/backward of the pipelined tiny transformer, one example (sequence) at a time.
#include "workloads/proxy/StagedTransformer.hpp"

#include "numerics/ParallelFor.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::workloads {

namespace {
constexpr std::size_t kGradientChunks = 8; // fixed, so the summation order is fixed

TransformerConfig with_layers(TransformerConfig c, int stages)
{
  c.layers = std::max(c.layers, stages - 2); // every stage runs at least one unit
  return c;
}
} // namespace

StagedTransformer::StagedTransformer(int stages, int train_examples, std::uint64_t seed, TransformerConfig config,
                                     std::string text)
    : stages_(stages), model_(with_layers(config, stages), seed, std::move(text))
{
  if (stages < 2)
    throw std::invalid_argument("the pipelined tiny-transformer needs at least 2 stages");
  if (train_examples < 1)
    throw std::invalid_argument("the pipelined tiny-transformer needs at least one training window");
  for (int i = 0; i < train_examples; ++i)
    windows_.push_back(model_.train_window(i, train_examples));
  const int units = head_unit() + 1;
  for (int s = 0; s <= stages; ++s)
    first_unit_.push_back(units * s / stages);
}

long StagedTransformer::out_rows(int s) const
{
  return first_unit_[static_cast<std::size_t>(s) + 1] > head_unit() ? model_.dims().vocab : model_.dims().width;
}

Mat StagedTransformer::inputs(const std::vector<int>& ids) const
{
  const long T = positions();
  Mat m(1, static_cast<long>(ids.size()) * T);
  for (std::size_t j = 0; j < ids.size(); ++j)
    for (long t = 0; t < T; ++t)
      m(0, static_cast<long>(j) * T + t) =
          static_cast<float>(windows_.at(static_cast<std::size_t>(ids[j]))[static_cast<std::size_t>(t)]);
  return m;
}

std::vector<int> StagedTransformer::labels(const std::vector<int>& ids) const
{
  std::vector<int> out;
  for (int i : ids) {
    const auto& w = windows_.at(static_cast<std::size_t>(i));
    out.insert(out.end(), w.begin() + 1, w.end());
  }
  return out;
}

transformer::RMat StagedTransformer::stage_forward(const float* P, int s, const transformer::RMat& x, const int* tokens,
                                                   Caches& caches) const
{
  using namespace transformer;
  const int first = first_unit_[static_cast<std::size_t>(s)], end = first_unit_[static_cast<std::size_t>(s) + 1];
  caches.blocks.resize(static_cast<std::size_t>(end - first));
  RMat y = first == 0 ? embed(P, model_.embed_offsets(), model_.dims(), tokens) : x;
  for (int u = std::max(first, 1); u < std::min(end, head_unit()); ++u)
    y = block_forward(P, model_.block_offsets(u - 1), model_.dims(), y,
                      caches.blocks[static_cast<std::size_t>(u - first)]);
  if (end > head_unit())
    y = head_forward(P, model_.head_offsets(), model_.dims(), y, caches.head);
  return y;
}

namespace {
/// Example j's T tokens out of stage 0's [1 x (examples · T)] input.
std::vector<int> tokens_of(const Mat& in, long j, long T)
{
  std::vector<int> t(static_cast<std::size_t>(T));
  for (long i = 0; i < T; ++i)
    t[static_cast<std::size_t>(i)] = static_cast<int>(in(0, j * T + i));
  return t;
}
} // namespace

Mat StagedTransformer::forward(const numerics::Vec& params, int s, const Mat& in) const
{
  using namespace transformer;
  const long T = positions(), d = model_.dims().width, rows = out_rows(s), n = in.cols() / T;
  Mat out(rows, n * T);
  numerics::parallel_for(static_cast<std::size_t>(n), [&](std::size_t e) { // examples are independent
    const long j = static_cast<long>(e);
    Caches caches;
    // Column-major [channels x T] of one example is row-major [T x channels]: the same memory.
    const RMat x          = s == 0 ? RMat() : RMat(Eigen::Map<const RMat>(in.data() + j * T * d, T, d));
    const std::vector<int> tok = s == 0 ? tokens_of(in, j, T) : std::vector<int>();
    Eigen::Map<RMat>(out.data() + j * T * rows, T, rows) = stage_forward(params.data(), s, x, tok.data(), caches);
  });
  return out;
}

Mat StagedTransformer::backward(const numerics::Vec& params, int s, const Mat& in, const Mat& d_out,
                                numerics::Vec& grad) const
{
  using namespace transformer;
  const long T = positions(), d = model_.dims().width, rows = out_rows(s), n = in.cols() / T;
  const float* P = params.data();
  const int first = first_unit_[static_cast<std::size_t>(s)], end = first_unit_[static_cast<std::size_t>(s) + 1];
  Mat d_in       = s == 0 ? Mat() : Mat(d, n * T);
  // Weight gradients accumulate per fixed chunk of examples, then the chunks are summed in order: the result does
  // not depend on how many threads ran the chunks.
  const std::size_t chunks = std::min<std::size_t>(kGradientChunks, static_cast<std::size_t>(n));
  std::vector<numerics::Vec> partial(chunks, numerics::Vec::Zero(grad.size()));
  numerics::parallel_for(chunks, [&](std::size_t c) {
    float* G = partial[c].data();
    Caches caches;
    const long begin = n * static_cast<long>(c) / static_cast<long>(chunks);
    const long stop  = n * static_cast<long>(c + 1) / static_cast<long>(chunks);
    for (long j = begin; j < stop; ++j) {
      const RMat x          = s == 0 ? RMat() : RMat(Eigen::Map<const RMat>(in.data() + j * T * d, T, d));
      const std::vector<int> tok = s == 0 ? tokens_of(in, j, T) : std::vector<int>();
      stage_forward(P, s, x, tok.data(), caches);
      RMat g = Eigen::Map<const RMat>(d_out.data() + j * T * rows, T, rows);
      if (end > head_unit())
        g = head_backward(P, model_.head_offsets(), model_.dims(), caches.head, g, G);
      for (int u = std::min(end, head_unit()) - 1; u >= std::max(first, 1); --u)
        g = block_backward(P, model_.block_offsets(u - 1), model_.dims(),
                           caches.blocks[static_cast<std::size_t>(u - first)], g, G);
      if (first == 0)
        embed_backward(g, model_.embed_offsets(), model_.dims(), tok.data(), G);
      else
        Eigen::Map<RMat>(d_in.data() + j * T * d, T, d) = g;
    }
  });
  for (const auto& part : partial)
    grad += part;
  return d_in;
}

} // namespace ccsim::workloads
