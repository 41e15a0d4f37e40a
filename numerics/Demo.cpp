// DeMo's DCT top-k compression and signSGD update (numerics/Demo.hpp).
#include "numerics/Demo.hpp"

#include "numerics/ParallelFor.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ccsim::numerics {

DemoSettings demo_settings(const Hyper& h)
{
  DemoSettings s;
  s.decay = hyper_or(h, "compression_decay", s.decay);
  s.topk  = static_cast<long>(hyper_or(h, "topk", static_cast<double>(s.topk)));
  s.chunk = static_cast<long>(hyper_or(h, "chunk", static_cast<double>(s.chunk)));
  // demo.py's own checks (DeMo.__init__)
  if (s.topk <= 0)
    throw std::invalid_argument("DeMo topk must be positive");
  if (s.chunk <= 0)
    throw std::invalid_argument("DeMo chunk must be positive");
  if (!(s.decay >= 0 && s.decay < 1))
    throw std::invalid_argument("DeMo compression_decay must be in [0, 1)");
  return s;
}

std::size_t demo_chunk_size(std::size_t n, std::size_t target)
{
  if (n <= target)
    return n;
  for (std::size_t d = target; d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

std::vector<float> dct_matrix(std::size_t c)
{
  std::vector<float> m(c * c);
  for (std::size_t k = 0; k < c; ++k) {
    const double scale = std::sqrt((k == 0 ? 1.0 : 2.0) / static_cast<double>(c));
    for (std::size_t i = 0; i < c; ++i)
      m[k * c + i] = static_cast<float>(
          scale * std::cos(std::numbers::pi * static_cast<double>((2 * i + 1) * k) / (2.0 * static_cast<double>(c))));
  }
  return m;
}

std::vector<DemoTensor> demo_tensors(const TensorLayout& layout, std::size_t total, const DemoSettings& s)
{
  TensorLayout whole;
  if (layout.empty())
    whole.push_back({"all", 0, total, 0});
  const TensorLayout& l = layout.empty() ? whole : layout;
  const auto target     = static_cast<std::size_t>(s.chunk);
  std::vector<DemoTensor> out;
  for (const auto& t : l) {
    if (t.size == 0)
      continue;
    if (t.rows > 0 && t.size % t.rows != 0)
      throw std::invalid_argument("DeMo: tensor " + t.name + " of " + std::to_string(t.size) +
                                  " elements is not " + std::to_string(t.rows) + " rows");
    DemoTensor d;
    d.offset     = t.offset;
    d.rows       = t.rows > 0 ? t.rows : 1;
    d.cols       = t.size / d.rows;
    d.chunk_rows = t.rows > 0 ? demo_chunk_size(d.rows, target) : 1;
    d.chunk_cols = demo_chunk_size(d.cols, target);
    d.topk       = std::min(static_cast<std::size_t>(s.topk), d.coefficients());
    out.push_back(d);
  }
  return out;
}

std::size_t demo_sent_coefficients(const std::vector<DemoTensor>& tensors)
{
  std::size_t n = 0;
  for (const auto& t : tensors)
    n += t.chunks() * t.topk;
  return n;
}

namespace {

// The coefficients of one row-block of chunks (chunk_rows rows of the tensor, every chunk across it) are kept as a
// (chunk_rows·nx) x chunk_cols row-major matrix Y: row b·nx + x, column d holds coefficient (b, d) of chunk x. Then
//   encode: T = C_r·R (R the row-block, chunk_rows x cols), Y = T·C_cᵀ with T read as (chunk_rows·nx) x chunk_cols;
//   decode: T = Y·C_c, R = C_rᵀ·T with T read as chunk_rows x cols.
// A vector is a 1-row tensor whose C_r is [1], so it takes the same path exactly.

void encode_row_block(const CompressionKernels& k, const float* rows, const DemoTensor& t, const std::vector<float>& cr,
                      const std::vector<float>& cc, std::vector<float>& scratch, float* y)
{
  const auto r = static_cast<long>(t.chunk_rows), c = static_cast<long>(t.chunk_cols),
             cols = static_cast<long>(t.cols), nx = cols / c;
  scratch.resize(t.chunk_rows * t.cols);
  k.gemm(row_major(cr.data(), r, r), row_major(rows, r, cols), row_major(scratch.data(), r, cols), false);
  k.gemm(row_major(scratch.data(), r * nx, c), row_major(cc.data(), c, c).transposed(), row_major(y, r * nx, c), false);
}

void decode_row_block(const CompressionKernels& k, const float* y, const DemoTensor& t, const std::vector<float>& cr,
                      const std::vector<float>& cc, std::vector<float>& scratch, float* rows)
{
  const auto r = static_cast<long>(t.chunk_rows), c = static_cast<long>(t.chunk_cols),
             cols = static_cast<long>(t.cols), nx = cols / c;
  scratch.resize(t.chunk_rows * t.cols);
  k.gemm(row_major(y, r * nx, c), row_major(cc.data(), c, c), row_major(scratch.data(), r * nx, c), false);
  k.gemm(row_major(cr.data(), r, r).transposed(), row_major(scratch.data(), r, cols), row_major(rows, r, cols), false);
}

// Position in a row-block's Y of coefficient `k` (b·chunk_cols + d) of chunk x.
std::size_t y_position(const DemoTensor& t, std::size_t x, std::size_t k)
{
  const std::size_t nx = t.cols / t.chunk_cols, b = k / t.chunk_cols, d = k % t.chunk_cols;
  return (b * nx + x) * t.chunk_cols + d;
}

} // namespace

Demo::Demo(const TensorLayout& layout, std::size_t workers, const Hyper& h, const CompressionKernels& kernels)
    : kernels_(&kernels), workers_(workers), h_(h), s_(demo_settings(h)), layout_(layout)
{
}

const std::vector<float>& Demo::basis(std::size_t c) const { return bases_.at(c); }

void Demo::compress(std::size_t w, Sparse& out)
{
  Vec& delta = deltas_[w];
  std::vector<float> y, scratch, chunk, sent, back;
  std::vector<std::uint32_t> order;
  out.index.clear();
  out.value.clear();
  for (const auto& t : tensors_) {
    const std::size_t nx = t.cols / t.chunk_cols, ny = t.rows / t.chunk_rows, k_all = t.coefficients();
    const auto& cr = basis(t.chunk_rows);
    const auto& cc = basis(t.chunk_cols);
    y.resize(t.chunk_rows * t.cols);
    for (std::size_t by = 0; by < ny; ++by) {
      float* rows = delta.data() + t.offset + by * t.chunk_rows * t.cols;
      encode_row_block(*kernels_, rows, t, cr, cc, scratch, y.data());
      sent.assign(y.size(), 0.0f);
      for (std::size_t x = 0; x < nx; ++x) {
        chunk.resize(k_all);
        for (std::size_t k = 0; k < k_all; ++k)
          chunk[k] = y[y_position(t, x, k)];
        order.resize(k_all);
        std::iota(order.begin(), order.end(), 0u);
        const auto larger = [&](std::uint32_t a, std::uint32_t b) {
          const float fa = std::fabs(chunk[a]), fb = std::fabs(chunk[b]);
          return fa > fb || (fa == fb && a < b);
        };
        std::nth_element(order.begin(), order.begin() + static_cast<long>(t.topk) - 1, order.end(), larger);
        std::sort(order.begin(), order.begin() + static_cast<long>(t.topk));
        for (std::size_t j = 0; j < t.topk; ++j) {
          out.index.push_back(order[j]);
          out.value.push_back(chunk[order[j]]);
          sent[y_position(t, x, order[j])] = chunk[order[j]];
        }
      }
      // δ -= IDCT(what was sent)
      back.resize(t.chunk_rows * t.cols);
      decode_row_block(*kernels_, sent.data(), t, cr, cc, scratch, back.data());
      for (std::size_t i = 0; i < back.size(); ++i)
        rows[i] -= back[i];
    }
  }
}

void Demo::decode_global(const std::vector<Sparse>& sent)
{
  std::vector<std::size_t> cursor(workers_, 0); // each worker's next entry, in tensor and chunk order
  std::vector<float> y, sum, scratch;
  std::vector<std::uint32_t> count;
  for (const auto& t : tensors_) {
    const std::size_t nx = t.cols / t.chunk_cols, ny = t.rows / t.chunk_rows, k_all = t.coefficients();
    y.resize(t.chunk_rows * t.cols);
    for (std::size_t by = 0; by < ny; ++by) {
      std::fill(y.begin(), y.end(), 0.0f);
      for (std::size_t x = 0; x < nx; ++x) {
        // torch scatter_reduce(reduce="mean", include_self=False): the values at a coefficient summed in the order of
        // the concatenated gather (worker order), then divided by how many there were
        sum.assign(k_all, 0.0f);
        count.assign(k_all, 0);
        for (std::size_t w = 0; w < workers_; ++w)
          for (std::size_t j = 0; j < t.topk; ++j, ++cursor[w]) {
            const std::uint32_t k = sent[w].index[cursor[w]];
            sum[k] += sent[w].value[cursor[w]];
            ++count[k];
          }
        for (std::size_t k = 0; k < k_all; ++k)
          if (count[k] > 0)
            y[y_position(t, x, k)] = sum[k] / static_cast<float>(count[k]);
      }
      decode_row_block(*kernels_, y.data(), t, basis(t.chunk_rows), basis(t.chunk_cols), scratch,
                       update_.data() + t.offset + by * t.chunk_rows * t.cols);
    }
  }
}

void Demo::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  if (params.size() != workers_ || grads.size() != workers_)
    throw std::invalid_argument("DeMo: " + std::to_string(params.size()) + " workers given, " +
                                std::to_string(workers_) + " expected");
  const auto n = static_cast<std::size_t>(params[0].size());
  if (deltas_.empty()) {
    tensors_ = demo_tensors(layout_, n, s_);
    for (const auto& t : tensors_)
      for (const std::size_t c : {t.chunk_rows, t.chunk_cols}) {
        if (bases_.size() <= c)
          bases_.resize(c + 1);
        if (bases_[c].empty())
          bases_[c] = dct_matrix(c);
      }
    deltas_.assign(workers_, Vec::Zero(static_cast<long>(n)));
    update_ = Vec::Zero(static_cast<long>(n));
  }
  const auto lr    = static_cast<float>(lr_scale_ * hyper_or(h_, "lr", 1e-3));
  const auto decay = static_cast<float>(s_.decay);
  const double wd  = hyper_or(h_, "weight_decay", 0);

  std::vector<Sparse> sent(workers_);
  parallel_for(workers_, [&](std::size_t w) {
    deltas_[w] = decay * deltas_[w];
    deltas_[w] += lr * grads[w];
    compress(w, sent[w]);
  });
  decode_global(sent);

  // an all-gather of every worker's values (fp32) and int64 indices: each worker sends its own W - 1 times on a ring
  const std::size_t coefficients = sent[0].index.size();
  bytes_ += static_cast<std::uint64_t>(workers_ - 1) * coefficients * (sizeof(float) + sizeof(std::int64_t));

  const auto shrink = static_cast<float>(1.0 - static_cast<double>(lr) * wd);
  for (auto& p : params) {
    if (wd != 0)
      p *= shrink;
    for (long i = 0; i < p.size(); ++i) {
      const float u = update_[i];
      p[i] -= lr * static_cast<float>((u > 0.0f) - (u < 0.0f));
    }
  }
}

} // namespace ccsim::numerics
