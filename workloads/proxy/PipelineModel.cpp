// The pipeline-model factory and the cross-entropy both pipelined proxies end in.
#include "workloads/proxy/PipelineModel.hpp"

#include "workloads/proxy/StagedMlp.hpp"
#include "workloads/proxy/StagedTransformer.hpp"

#include <cmath>
#include <stdexcept>

namespace ccsim::workloads {

double column_cross_entropy(const Mat& logits, const std::vector<int>& labels, Mat* d_logits)
{
  Mat z        = logits;
  double total = 0;
  for (long j = 0; j < z.cols(); ++j) {
    z.col(j) = (z.col(j).array() - z.col(j).maxCoeff()).exp().matrix();
    z.col(j) /= z.col(j).sum();
    total -= std::log(std::max(1e-12f, z(labels[static_cast<std::size_t>(j)], j)));
  }
  if (d_logits != nullptr) {
    for (long j = 0; j < z.cols(); ++j)
      z(labels[static_cast<std::size_t>(j)], j) -= 1.0f;
    *d_logits = z / static_cast<float>(z.cols());
  }
  return total / static_cast<double>(z.cols());
}

double PipelineModel::loss(const Mat& logits, const std::vector<int>& labels, Mat* d_logits) const
{
  return column_cross_entropy(logits, labels, d_logits);
}

std::unique_ptr<PipelineModel> make_pipeline_model(const std::string& name, int stages, int train_examples,
                                                   std::uint64_t seed)
{
  if (name == "mlp")
    return std::make_unique<StagedMlp>(stages, 64, train_examples > 0 ? train_examples : 8192, seed);
  if (name == "tiny-transformer")
    return std::make_unique<StagedTransformer>(stages, train_examples > 0 ? train_examples : 1024, seed);
  throw std::invalid_argument("unknown model '" + name + "' (known: mlp, tiny-transformer)");
}

} // namespace ccsim::workloads
