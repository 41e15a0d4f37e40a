// Descriptors of the 1-bit methods: a warm-up that freezes the variance, then the compressed momentum allreduce.
#include "algorithms/onebit/OnebitAlgorithms.hpp"

#include "algorithms/TrainParams.hpp"
#include "algorithms/onebit/OnebitPlan.hpp"

#include "numerics/LayerwiseOptimizers.hpp"
#include "numerics/MomentumMask.hpp"
#include "numerics/Optimizers.hpp"

namespace ccsim::algorithms {

namespace {
// --- the 1-bit methods' train keys
ParamSpec freeze_step()
{
  return {"freeze_step", 0, "last warm-up step: the variance freezes after it", {1, 1e9}, true};
}

ParamSpec momentum_mask()
{
  const auto& words = numerics::momentum_mask_names();
  return {"momentum_mask", 0,
          "none (DeepSpeed's default) or auto: keep the momentum at 0 where every warm-up gradient was 0 "
          "(DeepSpeed's exp_avg_mask, derived instead of given)",
          {0, static_cast<double>(words.size() - 1)}, true, words};
}

ParamSpec compression_unit()
{
  const auto& words = numerics::compression_unit_names();
  return {"compression_unit", 0,
          "model (one compressed allreduce for the whole model: DeepSpeed under fp16) or tensor (one per parameter "
          "tensor, each with its own scale and error feedback: DeepSpeed in fp32). Default: tensor in a 1-bit Adam "
          "comparison on char-gpt, else model (ccsim train says which ran)",
          {0, static_cast<double>(words.size() - 1)}, true, words};
}

// 1-bit LAMB's coefficient ratio: the update clips it to [0.5, 4] unless told (numerics/LayerwiseOptimizers.cpp).
ParamSpec r_min() { return {"r_min", 0.5, "1-bit LAMB: lower clip of the coefficient ratio", {0, 1e3, true}}; }
ParamSpec r_max() { return {"r_max", 4.0, "1-bit LAMB: upper clip of the coefficient ratio", {0, 1e3, true}}; }
ParamSpec r_threshold()
{
  return {"r_threshold", 0, "1-bit LAMB: ratio change that freezes the coefficient", {0, 1e3}};
}

// --- the updates
std::unique_ptr<numerics::DistributedOptimizer> make_onebit_adam(const OptimizerArgs& a)
{
  return std::make_unique<numerics::OnebitAdam>(a.layout, a.workers, a.hyper, a.kernels);
}

std::unique_ptr<numerics::DistributedOptimizer> make_naive_onebit_adam(const OptimizerArgs& a)
{
  return std::make_unique<numerics::NaiveOnebitAdam>(a.layout, a.workers, a.hyper, a.kernels);
}

std::unique_ptr<numerics::DistributedOptimizer> make_onebit_lamb(const OptimizerArgs& a)
{
  return std::make_unique<numerics::OnebitLamb>(a.layout, a.n, a.workers, a.hyper, /*adapt_ratio=*/true, a.kernels);
}

std::unique_ptr<numerics::DistributedOptimizer> make_lamb_basic_onebit(const OptimizerArgs& a)
{
  return std::make_unique<numerics::OnebitLamb>(a.layout, a.n, a.workers, a.hyper, /*adapt_ratio=*/false, a.kernels);
}

/// A 1-bit method over `optimizer` ("adam" or "lamb"), its plan's warm-up at `warmup_fraction` of the steps (< 0:
/// none), compared against that optimizer uncompressed.
AlgorithmDescriptor onebit(std::string name, const std::string& optimizer, double warmup_fraction,
                           std::string description, OptimizerMaker make)
{
  AlgorithmDescriptor d;
  d.name        = std::move(name);
  d.description = std::move(description);
  d.plan        = std::make_shared<OnebitPlan>(d.name, optimizer, warmup_fraction);
  d.optimizer   = make;
  d.zero_stages = {0}; // the compressed all-reduce needs every rank's whole momentum and error buffers: no sharding
  d.family      = optimizer == "adam" ? "data-parallel Adam" : "data-parallel LAMB";
  d.baseline    = optimizer;
  return d;
}

// 1-bit Adam (DeepSpeed onebit/adam.py): a worker error of the whole momentum and a server error of 1/dp of it.
constexpr ExtraCopies kOnebitAdamMemory{1, 1, 0};
// 1-bit LAMB adds "one persistent copy of the fresh variance and one temporary copy of last step's momentum"
// (1-bit LAMB §4, Hardware). At dp = 1 that is 4 copies, against SLAMB Table 9's measured 1-bit LAMB - LAMB =
// (10.9 - 5.6) GB / 1.34 GB = 3.94 copies of BERT-Large's 336M fp32 parameters (an optimizer profile: its peak
// includes the temporary copy). The temporary copy lives in the step, after backward has freed the activations,
// which is how SLAMB Fig. 4d could run 1-bit LAMB on BERT-XLarge at 64 samples per 80 GB A100.
constexpr ExtraCopies kOnebitLambMemory{2, 1, 1};
// Warm-ups as the plans assume: 15 % for 1-bit Adam (§7.1: 15-25 %; 23K of 152K for BERT-Large), 16.7 % for
// 1-bit LAMB (§6.1: 1000 of 5993 steps).
const WarmupDefault kOnebitAdamWarmup{150, "15 % of the steps, 1-bit Adam §7.1"};
const WarmupDefault kOnebitLambWarmup{167, "16.7 % of the steps, 1-bit LAMB §6.1"};

std::vector<ParamSpec> onebit_lamb_keys()
{
  return train_keys::data_parallel({freeze_step(), momentum_mask(), train_keys::c_min(), train_keys::c_max(0.3),
                                    train_keys::beta3(), r_min(), r_max(), r_threshold()});
}
} // namespace

AlgorithmDescriptor onebit_adam()
{
  // BERT-Large seq 128 ran 152K steps with a 23K-step warm-up (1-bit Adam §7.1, Table 1: 15.1 %), which gives its
  // "up to 5x" via 1/(w + (1-w)/16) = 4.9 (§7.2); BERT-Base 16K/118K = 13.6 % gives 5.3.
  AlgorithmDescriptor d = onebit("onebit-adam", "adam", 0.15,
                                 "1-bit Adam: warm-up, then 1-bit compressed momentum allreduce", make_onebit_adam);
  // 1-bit Adam keeps DeepSpeed's own Adam formula, so neither bias_correction nor adam_variant.
  d.train_params = train_keys::data_parallel({freeze_step(), momentum_mask(), compression_unit()});
  d.memory       = kOnebitAdamMemory;
  d.warmup       = kOnebitAdamWarmup;
  d.claim        = PaperClaim::ONEBIT_ADAM;
  return d;
}

AlgorithmDescriptor naive_onebit_adam()
{
  AlgorithmDescriptor d = onebit("naive-1bit-adam", "adam", -1,
                                 "baseline: error-feedback 1-bit gradients with Adam, no warm-up",
                                 make_naive_onebit_adam);
  d.train_params =
      train_keys::data_parallel({train_keys::bias_correction(), train_keys::adam_variant(), compression_unit()});
  d.memory       = kOnebitAdamMemory; // the same compressor: worker and server errors
  d.claim        = PaperClaim::ONEBIT_ADAM;
  return d;
}

AlgorithmDescriptor onebit_lamb()
{
  // 1-bit LAMB: 1000 of 5993 seq-128 steps warm up (16.7 %, 1-bit LAMB §6 "Training parameters") -> 4.6x;
  // seq 512 uses 107 of 555 (19.3 %) -> 4.1x; pass --param warmup_fraction=0.193 for that phase.
  AlgorithmDescriptor d = onebit("onebit-lamb", "lamb", 0.1667,
                                 "1-bit LAMB: warm-up, then compressed momentum with adapted LAMB ratios",
                                 make_onebit_lamb);
  d.train_params = onebit_lamb_keys();
  d.memory       = kOnebitLambMemory;
  d.warmup       = kOnebitLambWarmup;
  d.claim        = PaperClaim::ONEBIT_LAMB;
  return d;
}

AlgorithmDescriptor lamb_basic_onebit()
{
  AlgorithmDescriptor d = onebit("lamb-basic-1bit", "lamb", 0.1667,
                                 "baseline: 1-bit LAMB with both variance and LAMB ratio frozen",
                                 make_lamb_basic_onebit);
  d.train_params = onebit_lamb_keys();
  d.memory       = kOnebitLambMemory;
  d.warmup       = kOnebitLambWarmup;
  d.claim        = PaperClaim::ONEBIT_LAMB;
  return d;
}

} // namespace ccsim::algorithms
