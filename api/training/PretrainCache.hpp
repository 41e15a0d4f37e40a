#pragma once
// `ccsim train --task finetune`: the pre-trained starting point, trained once and cached on disk.
//
// AQ-SGD's claim is about fine-tuning (§1: activations change slowly once a model is pre-trained; its GPT2 and
// DeBERTa runs fine-tune pre-trained models). The proxy's pre-training: plain data-parallel Adam, fp32, on another
// text than the fine-tuning one (Debian's GPL-2 against the usual GPL-3: a related text with its own distribution, as
// WikiText is to GPT-2's WebText). The result is cached under a key that hashes every setting it depends on, written
// atomically (temporary file, then rename), and checked when read (magic, key, size, checksum): a damaged or
// mismatched file is trained again, never used.

#include "numerics/OptimizerTypes.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace ccsim::api {

/// The pre-training rate (fp32 Adam, the proxy's default rate) and the fine-tuning default a tenth of it. AQ-SGD
/// fine-tunes at 2.5e-6 to 1e-5 (appendix B, "Hyperparameter Tuning"), far below the rates models are pre-trained
/// at; fine-tuning the proxy at its pre-training rate would move its activations as fast as training from scratch,
/// which is the regime AQ-SGD's claim excludes (README, "What the transformer shows").
inline constexpr double kPretrainLr = 0.003;
inline constexpr double kFinetuneLr = 0.0003; // kPretrainLr / 10, written out so it is exactly --param lr=0.0003

struct PretrainSpec {
  std::string corpus = "/usr/share/common-licenses/GPL-2";
  int steps          = 400;
  int global_batch   = 64;
  int workers        = 16;
  std::uint64_t seed = 1;
};

struct Pretrained {
  std::shared_ptr<const numerics::Vec> params;
  std::uint64_t key = 0;   // hash of the spec, the corpus bytes and the format version
  std::string file;        // the cache file
  bool from_cache = false; // read, not trained
  std::string note;        // why it was trained again, if a file was there ("" otherwise)
};

/// The default cache folder: $CCSIM_CACHE_DIR, else $XDG_CACHE_HOME/ccsim, else $HOME/.cache/ccsim.
std::string default_cache_dir();

/// The tiny transformer pre-trained by `spec`, from `cache_dir` when a valid file is there, else trained (about 25 s
/// on 2 cores at the defaults) and written there. A missing corpus or an unwritable folder throws io::InputError.
Pretrained pretrained_transformer(const PretrainSpec& spec, const std::string& cache_dir);

} // namespace ccsim::api
