// The transformer proxies (tiny-transformer, char-gpt): corpus, vocabulary, parameter layout, initialisation,
// sampling, and the whole-sequence loss composed from the layers of TransformerLayers.cpp.
#include "workloads/proxy/TinyTransformer.hpp"

#include "numerics/ParallelFor.hpp"
#include "workloads/proxy/CrossEntropy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ccsim::workloads {

namespace {
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
} // namespace

TransformerConfig char_gpt_config()
{
  TransformerConfig c;
  c.text_vocabulary      = true;
  c.biases               = false; // nanoGPT's bias=False: "a bit better and faster"
  c.gelu                 = true;
  c.tied_embeddings      = true;  // nanoGPT, GPT-2 (Press & Wolf 2017)
  c.scaled_residual_init = true;  // nanoGPT's c_proj init, GPT-2 §2.3
  c.zero_embeddings      = false; // nanoGPT: embeddings N(0, 0.02)
  return c;
}

TinyTransformer::TinyTransformer(TransformerConfig config, std::uint64_t seed, std::string text) : c_(config), seed_(seed)
{
  if (c_.width % c_.heads != 0)
    throw std::invalid_argument("tiny-transformer: width must be a multiple of heads");
  if (text.empty())
    text = load_corpus();
  std::array<int, 256> token_of{};
  if (c_.text_vocabulary) { // the text's own characters, sorted (nanoGPT data/shakespeare_char/prepare.py)
    std::array<bool, 256> seen{};
    for (unsigned char ch : text)
      seen[ch] = true;
    c_.vocab = 0;
    for (int ch = 0; ch < 256; ++ch)
      token_of[static_cast<std::size_t>(ch)] = seen[static_cast<std::size_t>(ch)] ? c_.vocab++ : 0;
  } else {
    for (int ch = 0; ch < 256; ++ch)
      token_of[static_cast<std::size_t>(ch)] = to_token(static_cast<unsigned char>(ch));
  }
  for (unsigned char ch : text)
    tokens_.push_back(token_of[ch]);
  // `rows`: a weight's output width, as its memory is a row-major (out x in) matrix like torch's nn.Linear weight
  // (TransformerLayers.cpp reads it column-major as in x out); an embedding's rows are its tokens or positions.
  auto add = [&](const std::string& name, std::size_t n, std::size_t rows = 0) {
    layout_.push_back({name, size_, n, rows});
    size_ += n;
  };
  // A bias (or LayerNorm shift) only where the configuration has biases.
  auto add_bias = [&](const std::string& name, std::size_t n) {
    if (c_.biases)
      add(name, n);
  };
  const auto d = static_cast<std::size_t>(c_.width), h = static_cast<std::size_t>(c_.hidden);
  add("tok_emb", static_cast<std::size_t>(c_.vocab) * d, static_cast<std::size_t>(c_.vocab));
  add("pos_emb", static_cast<std::size_t>(c_.context) * d, static_cast<std::size_t>(c_.context));
  for (int l = 0; l < c_.layers; ++l) {
    const std::string p = "l" + std::to_string(l) + ".";
    add(p + "ln1_g", d);
    add_bias(p + "ln1_b", d);
    for (const char* n : {"wq", "wk", "wv", "wo"}) {
      const std::string weight = p + n;
      add(weight, d * d, d);
      add_bias(weight + "_b", d);
    }
    add(p + "ln2_g", d);
    add_bias(p + "ln2_b", d);
    add(p + "w1", d * h, h);
    add_bias(p + "b1", h);
    add(p + "w2", h * d, d);
    add_bias(p + "b2", d);
    residual_out_.push_back(p + "wo");
    residual_out_.push_back(p + "w2");
  }
  add("lnf_g", d);
  add_bias("lnf_b", d);
  if (!c_.tied_embeddings)
    add("w_out", d * static_cast<std::size_t>(c_.vocab), static_cast<std::size_t>(c_.vocab));
  add_bias("b_out", static_cast<std::size_t>(c_.vocab));

  dims_  = {c_.context, c_.width, c_.hidden, c_.vocab, c_.heads, c_.gelu};
  embed_ = {tensor("tok_emb").offset, tensor("pos_emb").offset};
  auto at = [&](const std::string& n) { // kNoTensor for a tensor this configuration does not have
    for (const auto& t : layout_)
      if (t.name == n)
        return t.offset;
    return transformer::kNoTensor;
  };
  for (int l = 0; l < c_.layers; ++l) {
    const std::string p = "l" + std::to_string(l) + ".";
    blocks_.push_back({at(p + "ln1_g"), at(p + "ln1_b"), at(p + "wq"), at(p + "wq_b"), at(p + "wk"), at(p + "wk_b"),
                       at(p + "wv"), at(p + "wv_b"), at(p + "wo"), at(p + "wo_b"), at(p + "ln2_g"), at(p + "ln2_b"),
                       at(p + "w1"), at(p + "b1"), at(p + "w2"), at(p + "b2")});
  }
  head_ = {at("lnf_g"), at("lnf_b"), c_.tied_embeddings ? embed_.tok : at("w_out"), at("b_out")};
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
  const float residual_std = 0.02f / std::sqrt(2.0f * static_cast<float>(c_.layers));
  for (const auto& t : layout_) {
    const bool gain = t.name.find("_g") != std::string::npos && t.name.find("ln") != std::string::npos;
    const bool embedding = t.name == "tok_emb" || t.name == "pos_emb";
    const bool bias      = embedding ? c_.zero_embeddings
                                     : t.name.back() == 'b' || t.name.find("_b") != std::string::npos ||
                                           t.name.find(".b") != std::string::npos;
    const bool residual = c_.scaled_residual_init &&
                          std::find(residual_out_.begin(), residual_out_.end(), t.name) != residual_out_.end();
    const float std_dev = residual ? residual_std : 0.02f; // GPT-2's 0.02
    for (std::size_t i = 0; i < t.size; ++i)
      p[static_cast<long>(t.offset + i)] = gain ? 1.0f : (bias ? 0.0f : std_dev * n01(rng));
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

std::vector<int> TinyTransformer::train_window(int i, int count) const
{
  const std::size_t train_end = tokens_.size() * 9 / 10;
  const std::size_t span      = train_end - static_cast<std::size_t>(c_.context) - 1;
  const std::size_t start     = span * static_cast<std::size_t>(i) / static_cast<std::size_t>(count);
  return {tokens_.begin() + static_cast<long>(start), tokens_.begin() + static_cast<long>(start) + c_.context + 1};
}

double TinyTransformer::sequence_loss(const numerics::Vec& params, const std::vector<int>& seq, numerics::Vec* grad) const
{
  using namespace transformer;
  const long T   = c_.context;
  const float* P = params.data();
  std::vector<BlockCache> cache(static_cast<std::size_t>(c_.layers));
  RMat x = embed(P, embed_, dims_, seq.data());
  for (int l = 0; l < c_.layers; ++l)
    x = block_forward(P, blocks_[static_cast<std::size_t>(l)], dims_, x, cache[static_cast<std::size_t>(l)]);
  HeadCache hc;
  const RMat logits = head_forward(P, head_, dims_, x, hc);
  // Row-major [T x vocab] logits are the column-major [vocab x T] matrix column_cross_entropy takes.
  const long V = dims_.vocab;
  const std::vector<int> next(seq.begin() + 1, seq.begin() + 1 + T);
  Eigen::MatrixXf d_logits;
  const double loss = column_cross_entropy(Eigen::Map<const Eigen::MatrixXf>(logits.data(), V, T), next,
                                           grad != nullptr ? &d_logits : nullptr);
  if (grad == nullptr)
    return loss;

  float* G = grad->data();
  RMat dx  = head_backward(P, head_, dims_, hc, Eigen::Map<const RMat>(d_logits.data(), T, V), G);
  for (int l = c_.layers - 1; l >= 0; --l)
    dx = block_backward(P, blocks_[static_cast<std::size_t>(l)], dims_, cache[static_cast<std::size_t>(l)], dx, G);
  embed_backward(dx, embed_, dims_, seq.data(), G);
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
  std::vector<double> losses(32);
  numerics::parallel_for(losses.size(), [&](std::size_t i) {
    const std::size_t at = start + span * i / 32;
    losses[i]            = sequence_loss(params, std::vector<int>(tokens_.begin() + static_cast<long>(at),
                                                                  tokens_.begin() + static_cast<long>(at) + c_.context + 1),
                                         nullptr);
  });
  double loss = 0;
  for (double l : losses) // summed in a fixed order: the same on any thread count
    loss += l;
  return loss / 32;
}

} // namespace ccsim::workloads
