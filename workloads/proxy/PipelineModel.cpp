// The pipeline-model factory.
#include "workloads/proxy/PipelineModel.hpp"

#include "workloads/proxy/StagedMlp.hpp"
#include "workloads/proxy/StagedTransformer.hpp"

#include <stdexcept>

namespace ccsim::workloads {

double PipelineModel::loss(const Mat& logits, const std::vector<int>& labels, Mat* d_logits) const
{
  return column_cross_entropy(logits, labels, d_logits);
}

std::unique_ptr<PipelineModel> make_pipeline_model(const std::string& name, int stages, int train_examples,
                                                   std::uint64_t seed, const std::string& text)
{
  if (name == "mlp")
    return std::make_unique<StagedMlp>(stages, 64, train_examples > 0 ? train_examples : 8192, seed);
  if (name == "tiny-transformer" || name == "char-gpt")
    return std::make_unique<StagedTransformer>(stages, train_examples > 0 ? train_examples : 1024, seed,
                                               name == "char-gpt" ? char_gpt_config() : TransformerConfig{}, text);
  throw std::invalid_argument("unknown model '" + name + "' (known: mlp, tiny-transformer, char-gpt)");
}

} // namespace ccsim::workloads
