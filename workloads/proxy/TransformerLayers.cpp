// Forward and hand-written backward of the transformer proxies' layers (pre-LN, causal multi-head attention, a ReLU
// or GELU MLP, biases optional). The finite-difference tests in tests/workloads/TinyTransformer_test.cpp check every
// tensor's gradient of both proxies. Every product, sum and exponential goes through numerics/FixedOrder.hpp and
// numerics/PortableMath.hpp, whose results no vector width or CPU changes (issue 42); Eigen holds the matrices and
// does the element-wise arithmetic, which is exact per element.
#include "workloads/proxy/TransformerLayers.hpp"

#include "numerics/FixedOrder.hpp"
#include "numerics/PortableMath.hpp"

#include <cmath>

namespace ccsim::workloads::transformer {

namespace {
using numerics::ConstMatrixView;
using numerics::fixed_gemm;
using numerics::MatrixView;

/// Views of a whole row-major activation, of `count` columns of it from `first`, and of a column-major weight
/// (rows x cols) stored at w.
ConstMatrixView view(const RMat& m) { return numerics::row_major(m.data(), m.rows(), m.cols()); }
MatrixView view(RMat& m) { return numerics::row_major(m.data(), m.rows(), m.cols()); }
ConstMatrixView columns(const RMat& m, long first, long count) { return {m.data() + first, m.rows(), count, m.cols(), 1}; }
MatrixView columns(RMat& m, long first, long count) { return {m.data() + first, m.rows(), count, m.cols(), 1}; }
ConstMatrixView weight(const float* w, long rows, long cols) { return numerics::col_major(w, rows, cols); }

/// a·b as a new row-major matrix.
RMat product(ConstMatrixView a, ConstMatrixView b)
{
  RMat c(a.rows, b.cols);
  fixed_gemm(a, b, view(c));
  return c;
}

/// The tensor at offset o, or nullptr for one the model does not have.
const float* at(const float* P, std::size_t o) { return o == kNoTensor ? nullptr : P + o; }
float* at(float* G, std::size_t o) { return o == kNoTensor ? nullptr : G + o; }

constexpr float kSqrtHalf = 0.70710678118654752f, kInvSqrt2Pi = 0.39894228040143268f;
/// GELU with the exact normal CDF, as torch's nn.GELU() that nanoGPT uses: x Phi(x).
float gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * kSqrtHalf)); }
/// d/dx x Phi(x) = Phi(x) + x phi(x).
float gelu_grad(float x)
{
  return 0.5f * (1.0f + std::erf(x * kSqrtHalf)) + x * kInvSqrt2Pi * numerics::portable_expf(-0.5f * x * x);
}

RMat layer_norm(const RMat& x, const float* g, const float* b, LayerNormCache& c)
{
  const long T = x.rows(), d = x.cols();
  c.xhat.resize(T, d);
  c.rstd.resize(T);
  RMat y(T, d);
  Eigen::VectorXf centred(d);
  for (long t = 0; t < T; ++t) {
    const float mu = numerics::fixed_sum(x.data() + t * d, static_cast<std::size_t>(d)) / static_cast<float>(d);
    centred        = x.row(t).transpose().array() - mu;
    const float var =
        numerics::fixed_dot(centred.data(), centred.data(), static_cast<std::size_t>(d)) / static_cast<float>(d);
    c.rstd[t] = 1.0f / std::sqrt(var + 1e-5f);
    for (long j = 0; j < d; ++j) {
      c.xhat(t, j) = (x(t, j) - mu) * c.rstd[t];
      y(t, j)      = c.xhat(t, j) * g[j] + (b != nullptr ? b[j] : 0.0f);
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
      if (db != nullptr)
        db[j] += dy(t, j);
      dxhat[j] = dy(t, j) * g[j];
    }
    const float mean_dxhat = numerics::fixed_sum(dxhat.data(), static_cast<std::size_t>(d)) / static_cast<float>(d);
    const float mean_dot =
        numerics::fixed_dot(dxhat.data(), c.xhat.data() + t * d, static_cast<std::size_t>(d)) / static_cast<float>(d);
    for (long j = 0; j < d; ++j)
      dx(t, j) = c.rstd[t] * (dxhat[j] - mean_dxhat - c.xhat(t, j) * mean_dot);
  }
  return dx;
}

/// y = x W + b for row-major activations and an (in x out) weight stored column-major at w; b may be nullptr.
RMat affine(const RMat& x, const float* w, const float* b, long in, long out)
{
  RMat y = product(view(x), weight(w, in, out));
  if (b != nullptr)
    y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, out);
  return y;
}

/// dw += x^T dy; db += the column sums of dy (each column's sum over positions in order, then added once).
void affine_backward(const RMat& x, const RMat& dy, float* dw, float* db, long in, long out)
{
  fixed_gemm(view(x).transposed(), view(dy), numerics::col_major(dw, in, out), /*accumulate=*/true);
  if (db != nullptr) {
    Eigen::RowVectorXf sums = dy.row(0);
    for (long t = 1; t < dy.rows(); ++t)
      sums += dy.row(t);
    Eigen::Map<Eigen::RowVectorXf>(db, out) += sums;
  }
}

/// dy W^T for the column-major (in x out) weight at w: W^T's rows are w's columns, contiguous.
RMat times_transposed(const RMat& dy, const float* w, long in, long out)
{
  return product(view(dy), weight(w, in, out).transposed());
}
} // namespace

RMat embed(const float* P, const EmbedOffsets& o, const Dims& dims, const int* tokens)
{
  const long T = dims.positions, d = dims.width;
  RMat x(T, d);
  for (long t = 0; t < T; ++t)
    for (long j = 0; j < d; ++j)
      x(t, j) = P[o.tok + static_cast<std::size_t>(tokens[t] * d + j)] + P[o.pos + static_cast<std::size_t>(t * d + j)];
  return x;
}

void embed_backward(const RMat& dx, const EmbedOffsets& o, const Dims& dims, const int* tokens, float* G)
{
  const long T = dims.positions, d = dims.width;
  for (long t = 0; t < T; ++t)
    for (long j = 0; j < d; ++j) {
      G[o.tok + static_cast<std::size_t>(tokens[t] * d + j)] += dx(t, j);
      G[o.pos + static_cast<std::size_t>(t * d + j)] += dx(t, j);
    }
}

RMat block_forward(const float* P, const BlockOffsets& o, const Dims& dims, const RMat& x, BlockCache& C)
{
  const long T = dims.positions, d = dims.width, H = dims.hidden, nh = dims.heads, dh = d / nh;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  C.h = layer_norm(x, P + o.ln1_g, at(P, o.ln1_b), C.ln1);
  C.q = affine(C.h, P + o.wq, at(P, o.wq_b), d, d);
  C.k = affine(C.h, P + o.wk, at(P, o.wk_b), d, d);
  C.v = affine(C.h, P + o.wv, at(P, o.wv_b), d, d);
  C.o = RMat::Zero(T, d);
  C.attn.clear();
  for (long hd = 0; hd < nh; ++hd) {
    RMat s = product(columns(C.q, hd * dh, dh), columns(C.k, hd * dh, dh).transposed()) * scale;
    for (long i = 0; i < T; ++i) {
      const float mx = numerics::fixed_max(s.data() + i * T, static_cast<std::size_t>(i + 1));
      for (long j = 0; j < T; ++j)
        s(i, j) = j <= i ? numerics::portable_expf(s(i, j) - mx) : 0.0f; // causal: position i sees 0..i
      s.row(i) /= numerics::fixed_sum(s.data() + i * T, static_cast<std::size_t>(T));
    }
    fixed_gemm(view(s), columns(C.v, hd * dh, dh), columns(C.o, hd * dh, dh));
    C.attn.push_back(std::move(s));
  }
  C.x1 = x + affine(C.o, P + o.wo, at(P, o.wo_b), d, d);
  C.h2 = layer_norm(C.x1, P + o.ln2_g, at(P, o.ln2_b), C.ln2);
  C.u  = affine(C.h2, P + o.w1, at(P, o.b1), d, H);
  C.r  = dims.gelu ? RMat(C.u.unaryExpr(&gelu)) : RMat(C.u.cwiseMax(0.0f));
  return C.x1 + affine(C.r, P + o.w2, at(P, o.b2), H, d);
}

RMat block_backward(const float* P, const BlockOffsets& o, const Dims& dims, const BlockCache& C, const RMat& dx,
                    float* G)
{
  const long T = dims.positions, d = dims.width, H = dims.hidden, nh = dims.heads, dh = d / nh;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  // MLP branch: x2 = x1 + act(h2 W1 + b1) W2 + b2
  affine_backward(C.r, dx, G + o.w2, at(G, o.b2), H, d);
  const RMat act_grad = dims.gelu ? RMat(C.u.unaryExpr(&gelu_grad)) : RMat((C.u.array() > 0).cast<float>().matrix());
  const RMat du       = times_transposed(dx, P + o.w2, H, d).cwiseProduct(act_grad);
  affine_backward(C.h2, du, G + o.w1, at(G, o.b1), d, H);
  const RMat dx1 = dx + layer_norm_backward(times_transposed(du, P + o.w1, d, H), P + o.ln2_g, C.ln2, G + o.ln2_g,
                                            at(G, o.ln2_b));
  // Attention branch: x1 = x + O Wo + bo
  affine_backward(C.o, dx1, G + o.wo, at(G, o.wo_b), d, d);
  const RMat d_o = times_transposed(dx1, P + o.wo, d, d);
  RMat dq(T, d), dk(T, d), dv(T, d);
  for (long hd = 0; hd < nh; ++hd) {
    const RMat& A = C.attn[static_cast<std::size_t>(hd)];
    fixed_gemm(view(A).transposed(), columns(d_o, hd * dh, dh), columns(dv, hd * dh, dh));
    const RMat dA = product(columns(d_o, hd * dh, dh), columns(C.v, hd * dh, dh).transposed());
    RMat ds       = A.cwiseProduct(dA);
    for (long i = 0; i < T; ++i) // softmax backward: A ⊙ (dA - rowsum(A ⊙ dA))
      ds.row(i) -= A.row(i) * numerics::fixed_sum(ds.data() + i * T, static_cast<std::size_t>(T));
    // (ds K) and (ds^T Q), then the 1/sqrt(dh) of the scores.
    fixed_gemm(view(ds), columns(C.k, hd * dh, dh), columns(dq, hd * dh, dh));
    fixed_gemm(view(ds).transposed(), columns(C.q, hd * dh, dh), columns(dk, hd * dh, dh));
  }
  dq *= scale;
  dk *= scale;
  affine_backward(C.h, dq, G + o.wq, at(G, o.wq_b), d, d);
  affine_backward(C.h, dk, G + o.wk, at(G, o.wk_b), d, d);
  affine_backward(C.h, dv, G + o.wv, at(G, o.wv_b), d, d);
  // dq Wq^T + dk Wk^T + dv Wv^T, summed in that order.
  RMat dh_ = times_transposed(dq, P + o.wq, d, d);
  fixed_gemm(view(dk), weight(P + o.wk, d, d).transposed(), view(dh_), /*accumulate=*/true);
  fixed_gemm(view(dv), weight(P + o.wv, d, d).transposed(), view(dh_), /*accumulate=*/true);
  return dx1 + layer_norm_backward(dh_, P + o.ln1_g, C.ln1, G + o.ln1_g, at(G, o.ln1_b));
}

RMat head_forward(const float* P, const HeadOffsets& o, const Dims& dims, const RMat& x, HeadCache& C)
{
  C.hf = layer_norm(x, P + o.lnf_g, at(P, o.lnf_b), C.lnf);
  return affine(C.hf, P + o.w_out, at(P, o.b_out), dims.width, dims.vocab);
}

RMat head_backward(const float* P, const HeadOffsets& o, const Dims& dims, const HeadCache& C, const RMat& d_logits,
                   float* G)
{
  affine_backward(C.hf, d_logits, G + o.w_out, at(G, o.b_out), dims.width, dims.vocab);
  return layer_norm_backward(times_transposed(d_logits, P + o.w_out, dims.width, dims.vocab), P + o.lnf_g, C.lnf,
                             G + o.lnf_g, at(G, o.lnf_b));
}

} // namespace ccsim::workloads::transformer
