// Hand-written forward and backward of the tiny causal transformer (pre-LN, multi-head attention, ReLU MLP).
#include "workloads/proxy/TinyTransformer.hpp"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ccsim::workloads {

namespace {
using RMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>; // rows = positions
using CMap = Eigen::Map<const Eigen::MatrixXf>;
using GMap = Eigen::Map<Eigen::MatrixXf>;

int to_token(unsigned char ch)
{
  if (ch == '\n')
    return 95;
  return (ch >= 32 && ch <= 126) ? ch - 32 : 0; // anything else reads as a space
}

std::string load_corpus()
{
  std::ifstream in("/usr/share/common-licenses/GPL-3");
  std::stringstream s;
  s << in.rdbuf();
  if (s.str().size() > 10000)
    return s.str();
  // No GPL text (not a Debian machine): a deterministic pseudo-English text of fixed words.
  static const char* words[] = {"the", "program", "free", "software", "you", "license", "work", "copy", "source",
                                "code", "of", "and", "to", "a", "any", "this", "is", "under", "terms"};
  std::mt19937 rng(7);
  std::string t;
  while (t.size() < 40000)
    t += std::string(words[rng() % 19]) + (rng() % 9 == 0 ? ".\n" : " ");
  return t;
}

struct LayerNormCache {
  RMat xhat;
  Eigen::VectorXf rstd;
};

RMat layer_norm(const RMat& x, const float* g, const float* b, LayerNormCache& c)
{
  const long T = x.rows(), d = x.cols();
  c.xhat.resize(T, d);
  c.rstd.resize(T);
  RMat y(T, d);
  for (long t = 0; t < T; ++t) {
    const float mu  = x.row(t).mean();
    const float var = (x.row(t).array() - mu).square().mean();
    c.rstd[t]       = 1.0f / std::sqrt(var + 1e-5f);
    for (long j = 0; j < d; ++j) {
      c.xhat(t, j) = (x(t, j) - mu) * c.rstd[t];
      y(t, j)      = c.xhat(t, j) * g[j] + b[j];
    }
  }
  return y;
}

RMat layer_norm_backward(const RMat& dy, const float* g, const LayerNormCache& c, float* dg, float* db)
{
  const long T = dy.rows(), d = dy.cols();
  RMat dx(T, d);
  for (long t = 0; t < T; ++t) {
    Eigen::VectorXf dxhat(d);
    for (long j = 0; j < d; ++j) {
      dg[j] += dy(t, j) * c.xhat(t, j);
      db[j] += dy(t, j);
      dxhat[j] = dy(t, j) * g[j];
    }
    const float mean_dxhat = dxhat.mean();
    float mean_dot         = 0;
    for (long j = 0; j < d; ++j)
      mean_dot += dxhat[j] * c.xhat(t, j);
    mean_dot /= static_cast<float>(d);
    for (long j = 0; j < d; ++j)
      dx(t, j) = c.rstd[t] * (dxhat[j] - mean_dxhat - c.xhat(t, j) * mean_dot);
  }
  return dx;
}

/// y = x W + b for row-major activations and a (in x out) weight stored column-major at w.
RMat affine(const RMat& x, const float* w, const float* b, long in, long out)
{
  RMat y = x * CMap(w, in, out);
  y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, out);
  return y;
}

void affine_backward(const RMat& x, const RMat& dy, float* dw, float* db, long in, long out)
{
  GMap(dw, in, out) += x.transpose() * dy;
  Eigen::Map<Eigen::RowVectorXf>(db, out) += dy.colwise().sum();
}
} // namespace

TinyTransformer::TinyTransformer(TransformerConfig config, std::uint64_t seed, std::string text) : c_(config), seed_(seed)
{
  if (c_.width % c_.heads != 0)
    throw std::invalid_argument("tiny-transformer: width must be a multiple of heads");
  if (text.empty())
    text = load_corpus();
  for (unsigned char ch : text)
    tokens_.push_back(to_token(ch));
  auto add = [&](const std::string& name, std::size_t n) {
    layout_.push_back({name, size_, n});
    size_ += n;
  };
  const auto d = static_cast<std::size_t>(c_.width), h = static_cast<std::size_t>(c_.hidden);
  add("tok_emb", static_cast<std::size_t>(c_.vocab) * d);
  add("pos_emb", static_cast<std::size_t>(c_.context) * d);
  for (int l = 0; l < c_.layers; ++l) {
    const std::string p = "l" + std::to_string(l) + ".";
    for (const char* n : {"ln1_g", "ln1_b"})
      add(p + n, d);
    for (const char* n : {"wq", "wk", "wv", "wo"}) {
      const std::string weight = p + n;
      add(weight, d * d);
      add(weight + "_b", d);
    }
    for (const char* n : {"ln2_g", "ln2_b"})
      add(p + n, d);
    add(p + "w1", d * h);
    add(p + "b1", h);
    add(p + "w2", h * d);
    add(p + "b2", d);
  }
  add("lnf_g", d);
  add("lnf_b", d);
  add("w_out", d * static_cast<std::size_t>(c_.vocab));
  add("b_out", static_cast<std::size_t>(c_.vocab));
}

const numerics::TensorSlice& TinyTransformer::tensor(const std::string& name) const
{
  for (const auto& t : layout_)
    if (t.name == name)
      return t;
  throw std::logic_error("no tensor " + name);
}

numerics::Vec TinyTransformer::initial_params(std::uint64_t seed) const
{
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> n01;
  numerics::Vec p = numerics::Vec::Zero(static_cast<long>(size_));
  for (const auto& t : layout_) {
    const bool gain = t.name.find("_g") != std::string::npos && t.name.find("ln") != std::string::npos;
    const bool bias = t.name.back() == 'b' || t.name.find("_b") != std::string::npos || t.name.find(".b") != std::string::npos;
    for (std::size_t i = 0; i < t.size; ++i)
      p[static_cast<long>(t.offset + i)] = gain ? 1.0f : (bias ? 0.0f : 0.02f * n01(rng)); // GPT-2's 0.02
  }
  return p;
}

std::vector<std::vector<int>> TinyTransformer::sample(int count, std::uint64_t shard, std::uint64_t step) const
{
  const std::size_t train_end = tokens_.size() * 9 / 10;
  std::mt19937_64 rng(seed_ * 1000003 + shard * 7919 + step * 104729);
  std::vector<std::vector<int>> out;
  for (int i = 0; i < count; ++i) {
    const std::size_t start = rng() % (train_end - static_cast<std::size_t>(c_.context) - 1);
    out.emplace_back(tokens_.begin() + static_cast<long>(start), tokens_.begin() + static_cast<long>(start) + c_.context + 1);
  }
  return out;
}

double TinyTransformer::sequence_loss(const numerics::Vec& params, const std::vector<int>& seq, numerics::Vec* grad) const
{
  const long T = c_.context, d = c_.width, H = c_.hidden, V = c_.vocab, nh = c_.heads, dh = d / nh;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const float* P    = params.data();
  auto at           = [&](const std::string& n) { return P + tensor(n).offset; };

  struct LayerCache {
    RMat x_in, h, q, k, v, o, x1, h2, u, r;
    LayerNormCache ln1, ln2;
    std::vector<RMat> attn;
  };
  std::vector<LayerCache> cache(static_cast<std::size_t>(c_.layers));
  RMat x(T, d);
  for (long t = 0; t < T; ++t)
    for (long j = 0; j < d; ++j)
      x(t, j) = at("tok_emb")[seq[static_cast<std::size_t>(t)] * d + j] + at("pos_emb")[t * d + j];
  for (int l = 0; l < c_.layers; ++l) {
    auto& C         = cache[static_cast<std::size_t>(l)];
    const std::string p = "l" + std::to_string(l) + ".";
    C.x_in          = x;
    C.h             = layer_norm(x, at(p + "ln1_g"), at(p + "ln1_b"), C.ln1);
    C.q             = affine(C.h, at(p + "wq"), at(p + "wq_b"), d, d);
    C.k             = affine(C.h, at(p + "wk"), at(p + "wk_b"), d, d);
    C.v             = affine(C.h, at(p + "wv"), at(p + "wv_b"), d, d);
    C.o             = RMat::Zero(T, d);
    for (long hd = 0; hd < nh; ++hd) {
      RMat s = C.q.middleCols(hd * dh, dh) * C.k.middleCols(hd * dh, dh).transpose() * scale;
      for (long i = 0; i < T; ++i) {
        const float mx = s.row(i).head(i + 1).maxCoeff();
        float sum      = 0;
        for (long j = 0; j < T; ++j) {
          s(i, j) = j <= i ? std::exp(s(i, j) - mx) : 0.0f; // causal: position i sees 0..i
          sum += s(i, j);
        }
        s.row(i) /= sum;
      }
      C.o.middleCols(hd * dh, dh) = s * C.v.middleCols(hd * dh, dh);
      C.attn.push_back(std::move(s));
    }
    C.x1 = x + affine(C.o, at(p + "wo"), at(p + "wo_b"), d, d);
    C.h2 = layer_norm(C.x1, at(p + "ln2_g"), at(p + "ln2_b"), C.ln2);
    C.u  = affine(C.h2, at(p + "w1"), at(p + "b1"), d, H);
    C.r  = C.u.cwiseMax(0.0f);
    x    = C.x1 + affine(C.r, at(p + "w2"), at(p + "b2"), H, d);
  }
  LayerNormCache lnf;
  const RMat hf = layer_norm(x, at("lnf_g"), at("lnf_b"), lnf);
  RMat probs    = affine(hf, at("w_out"), at("b_out"), d, V);
  double loss   = 0;
  for (long t = 0; t < T; ++t) {
    const float mx = probs.row(t).maxCoeff();
    probs.row(t)   = (probs.row(t).array() - mx).exp().matrix();
    probs.row(t) /= probs.row(t).sum();
    loss -= std::log(std::max(1e-12f, probs(t, seq[static_cast<std::size_t>(t) + 1])));
  }
  loss /= static_cast<double>(T);
  if (grad == nullptr)
    return loss;

  float* G = grad->data();
  auto dat = [&](const std::string& n) { return G + tensor(n).offset; };
  RMat dlogits = probs;
  for (long t = 0; t < T; ++t)
    dlogits(t, seq[static_cast<std::size_t>(t) + 1]) -= 1.0f;
  dlogits /= static_cast<float>(T);
  affine_backward(hf, dlogits, dat("w_out"), dat("b_out"), d, V);
  RMat dx = layer_norm_backward(dlogits * CMap(at("w_out"), d, V).transpose(), at("lnf_g"), lnf, dat("lnf_g"), dat("lnf_b"));
  for (int l = c_.layers - 1; l >= 0; --l) {
    const auto& C       = cache[static_cast<std::size_t>(l)];
    const std::string p = "l" + std::to_string(l) + ".";
    // MLP branch: x2 = x1 + relu(h2 W1 + b1) W2 + b2
    affine_backward(C.r, dx, dat(p + "w2"), dat(p + "b2"), H, d);
    const RMat du = (dx * CMap(at(p + "w2"), H, d).transpose()).cwiseProduct((C.u.array() > 0).cast<float>().matrix());
    affine_backward(C.h2, du, dat(p + "w1"), dat(p + "b1"), d, H);
    const RMat dx1 = dx + layer_norm_backward(du * CMap(at(p + "w1"), d, H).transpose(), at(p + "ln2_g"), C.ln2,
                                              dat(p + "ln2_g"), dat(p + "ln2_b"));
    // Attention branch: x1 = x_in + O Wo + bo
    affine_backward(C.o, dx1, dat(p + "wo"), dat(p + "wo_b"), d, d);
    const RMat d_o = dx1 * CMap(at(p + "wo"), d, d).transpose();
    RMat dq(T, d), dk(T, d), dv(T, d);
    for (long hd = 0; hd < nh; ++hd) {
      const RMat& A  = C.attn[static_cast<std::size_t>(hd)];
      const RMat doh = d_o.middleCols(hd * dh, dh);
      dv.middleCols(hd * dh, dh) = A.transpose() * doh;
      const RMat dA  = doh * C.v.middleCols(hd * dh, dh).transpose();
      RMat ds        = A.cwiseProduct(dA);
      for (long i = 0; i < T; ++i)
        ds.row(i) -= A.row(i) * ds.row(i).sum(); // softmax backward: A ⊙ (dA - rowsum(A ⊙ dA))
      dq.middleCols(hd * dh, dh) = scale * ds * C.k.middleCols(hd * dh, dh);
      dk.middleCols(hd * dh, dh) = scale * ds.transpose() * C.q.middleCols(hd * dh, dh);
    }
    affine_backward(C.h, dq, dat(p + "wq"), dat(p + "wq_b"), d, d);
    affine_backward(C.h, dk, dat(p + "wk"), dat(p + "wk_b"), d, d);
    affine_backward(C.h, dv, dat(p + "wv"), dat(p + "wv_b"), d, d);
    const RMat dh_ = dq * CMap(at(p + "wq"), d, d).transpose() + dk * CMap(at(p + "wk"), d, d).transpose() +
                     dv * CMap(at(p + "wv"), d, d).transpose();
    dx = dx1 + layer_norm_backward(dh_, at(p + "ln1_g"), C.ln1, dat(p + "ln1_g"), dat(p + "ln1_b"));
  }
  for (long t = 0; t < T; ++t)
    for (long j = 0; j < d; ++j) {
      dat("tok_emb")[seq[static_cast<std::size_t>(t)] * d + j] += dx(t, j);
      dat("pos_emb")[t * d + j] += dx(t, j);
    }
  return loss;
}

double TinyTransformer::batch_gradient(const numerics::Vec& params, int examples, std::uint64_t shard, std::uint64_t step,
                                       numerics::Vec& grad) const
{
  grad = numerics::Vec::Zero(static_cast<long>(size_));
  double loss = 0;
  for (const auto& s : sample(examples, shard, step))
    loss += sequence_loss(params, s, &grad);
  grad /= static_cast<float>(examples);
  return loss / examples;
}

double TinyTransformer::eval_loss(const numerics::Vec& params) const
{
  // 32 fixed windows from the held-out last 10 % of the text.
  const std::size_t start = tokens_.size() * 9 / 10, span = tokens_.size() - start - static_cast<std::size_t>(c_.context) - 1;
  double loss = 0;
  for (int i = 0; i < 32; ++i) {
    const std::size_t at = start + span * static_cast<std::size_t>(i) / 32;
    loss += sequence_loss(params, std::vector<int>(tokens_.begin() + static_cast<long>(at),
                                                   tokens_.begin() + static_cast<long>(at) + c_.context + 1), nullptr);
  }
  return loss / 32;
}

} // namespace ccsim::workloads
