// Descriptors of the low-communication methods.
#include "algorithms/lowcomm/LowCommAlgorithms.hpp"

#include "algorithms/TrainParams.hpp"
#include "algorithms/lowcomm/DemoPlan.hpp"
#include "algorithms/lowcomm/DilocoPlan.hpp"
#include "algorithms/lowcomm/PowerSgdPlan.hpp"
#include "algorithms/lowcomm/StreamingDilocoPlan.hpp"

#include "numerics/Demo.hpp"
#include "numerics/Diloco.hpp"
#include "numerics/PowerSgd.hpp"
#include "numerics/StreamingDiloco.hpp"

namespace ccsim::algorithms {

namespace {
ParamSpec powersgd_start_iter()
{
  return {"start_iter", 0,
          "PowerSGD: plain all-reduces before compression (torch's start_powerSGD_iter; the paper compresses from the "
          "first step)",
          {0, 1e9}, true};
}

std::unique_ptr<numerics::DistributedOptimizer> make_diloco(const OptimizerArgs& a)
{
  return std::make_unique<numerics::Diloco>(a.workers, a.hyper);
}

ParamSpec mixing()
{
  return {"mixing", 0.5,
          "Streaming DiLoCo: weight of the worker's own fragment when the new global one arrives (alpha)", {0, 1}};
}

std::unique_ptr<numerics::DistributedOptimizer> make_streaming_diloco(const OptimizerArgs& a)
{
  return std::make_unique<numerics::StreamingDiloco>(a.layout, a.workers, a.hyper, a.kernels);
}

std::unique_ptr<numerics::DistributedOptimizer> make_demo(const OptimizerArgs& a)
{
  return std::make_unique<numerics::Demo>(a.layout, a.workers, a.hyper, a.kernels);
}

ParamSpec compression_decay()
{
  return {"compression_decay", 0.999, "DeMo: decay of the momentum that keeps what was not sent (beta)", {0, 0.999999}};
}

std::unique_ptr<numerics::DistributedOptimizer> make_powersgd(const OptimizerArgs& a)
{
  return std::make_unique<numerics::PowerSgdOptimizer>("adam", a.layout, a.workers, a.hyper, a.kernels);
}

/// A low-communication method with its plan and update, compared against data-parallel Adam; every GPU holds the
/// whole model and its optimizer (ZeRO stage 0: DDP and DiLoCo's workers alike).
AlgorithmDescriptor low_communication(std::string name, std::string description,
                                      std::shared_ptr<const PlanAlgorithm> plan, OptimizerMaker make,
                                      std::vector<ParamSpec> keys, ExtraCopies memory)
{
  AlgorithmDescriptor d;
  d.name         = std::move(name);
  d.description  = std::move(description);
  d.plan         = std::move(plan);
  d.optimizer    = make;
  d.zero_stages  = {0};
  d.train_params = train_keys::data_parallel(std::move(keys));
  d.memory       = memory;
  d.family       = "data-parallel Adam";
  d.baseline     = "adam";
  return d;
}
} // namespace

AlgorithmDescriptor powersgd()
{
  // Adam (the optimizer a torch script registers the hook under) so that it ranks beside Adam and 1-bit Adam;
  // Vogels et al. train with momentum SGD (Algorithm 2). Memory: the hook's error buffer all the time, and its copy
  // of the input during the step (input_tensor_cp); the factors are r/(n + m) of that.
  return low_communication("powersgd",
                           "PowerSGD: rank-r gradient factors with error feedback (torch's DDP hook) under Adam",
                           std::make_shared<PowerSgdPlan>("powersgd"), make_powersgd,
                           {train_keys::bias_correction(), train_keys::adam_variant(), powersgd_rank_param(),
                            powersgd_start_iter()},
                           {1, 0, 1});
}

AlgorithmDescriptor diloco()
{
  // The inner optimizer is torch's AdamW (DiLoCo §3), so adam_variant is not a key; its rates and decay are. Memory:
  // the parameters of the last outer step and the outer momentum all the time (prime keeps both in host memory;
  // counted here as a GPU that keeps them), the outer gradient during the outer step.
  return low_communication("diloco",
                           "DiLoCo: H inner AdamW steps per worker, then an fp32 all-reduce of the outer gradient and "
                           "a Nesterov outer step",
                           std::make_shared<DilocoPlan>("diloco"), make_diloco,
                           {inner_steps_param(500), outer_lr_param(0.7), outer_momentum_param()}, {2, 0, 1});
}

AlgorithmDescriptor streaming_diloco()
{
  // DiLoCo's two copies; the fragments in flight are 1/P of one more.
  return low_communication("streaming-diloco",
                           "Streaming DiLoCo: DiLoCo's outer steps fragment by fragment, 4-bit outer gradients beside "
                           "the next inner steps",
                           std::make_shared<StreamingDilocoPlan>("streaming-diloco"), make_streaming_diloco,
                           {inner_steps_param(100), fragments_param(), overlap_steps_param(), mixing(),
                            outer_lr_param(0.4), outer_momentum_param(), outer_bits_param()},
                           {2, 0, 1});
}

AlgorithmDescriptor demo()
{
  // DeMo replaces the optimizer: signSGD (demo.py subclasses torch SGD without momentum) on the decoded update; its
  // rate and decay are the shared keys lr and weight_decay (the paper's runs: lr 4e-4, weight decay 0). Memory: the
  // momentum δ where Adam keeps m and v, counted as Adam's (one copy more than DeMo needs), and the decoded update
  // during the step.
  return low_communication("demo",
                           "DeMo: decoupled momentum, its DCT top-k all-gathered every step, signSGD on the mean",
                           std::make_shared<DemoPlan>("demo"), make_demo,
                           {demo_topk_param(), demo_chunk_param(), compression_decay()}, {0, 0, 1});
}

} // namespace ccsim::algorithms
