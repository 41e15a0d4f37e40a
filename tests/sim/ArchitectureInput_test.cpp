// The `architecture` block of a workload: what it fills in, and each bad value as one line with its JSON path.
#include "sim/model/Workload.hpp"
#include "tests/support/InputErrors.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

using ccsim::sim::load_workload;
using ccsim::test::message_of;
using ccsim::test::write_temp_file;

namespace {
// Llama-2-7B's block (HF config) plus extra top-level members and extra architecture members.
std::string llama_text(const std::string& top, const std::string& arch = "")
{
  return R"({"family": "llama", "architecture": {"layers": 32, "hidden": 4096, "heads": 32, "ffn_hidden": 11008,
             "activation": "swiglu", "vocab": 32000, "seq_len": 4096)" +
         (arch.empty() ? std::string() : ", " + arch) + "}" + (top.empty() ? std::string() : ", " + top) + "}";
}

std::string error_of(const std::string& name, const std::string& text)
{
  const auto file = write_temp_file(name, text);
  const std::string msg = message_of([&] { load_workload(file); });
  CHECK(msg.find('\n') == std::string::npos);
  return msg.substr(file.size()); // ": /path: problem"
}
} // namespace

TEST_CASE("ArchitectureInput: an architecture alone fills every size field", "[sim]")
{
  const auto w = load_workload(write_temp_file("arch-only.json", llama_text("")));
  CHECK(w.params == 6738415616u); // Llama-2-7B's released weights
  CHECK(w.layers == 32);
  CHECK(w.hidden == 4096);
  CHECK(w.heads == 32);
  CHECK(w.seq_len == 4096);
  CHECK(w.vocab == 32000);
  CHECK(w.tensors == 1 + 32 * 6 + 2); // Megatron-Core: embedding, 6 per layer, final norm, output layer
  REQUIRE(w.architecture);
  CHECK(w.architecture->kv_heads == 32); // kv_heads defaults to heads (multi-head attention)
  CHECK(w.architecture->head_dim == 128);
  CHECK(w.architecture->flash_attention);
  CHECK(w.architecture->attention_flops == ccsim::sim::AttentionFlops::CAUSAL);
}

TEST_CASE("ArchitectureInput: a given size field within 0.1 percent is kept and a farther one names both values",
          "[sim]")
{
  // 6,738,415,616 x 1.0005 = 6,741,784,824 is within 0.1 %: kept as given.
  const auto w = load_workload(write_temp_file("close.json", llama_text(R"("params": 6741784824, "layers": 32)")));
  CHECK(w.params == 6741784824u);
  // 7e9 is the model card's label, 3.88 % above the architecture's count.
  CHECK(error_of("far.json", llama_text(R"("params": 7e9)")) ==
        ": /params: 7000000000 given but the architecture implies 6738415616 (+3.882 %, more than 0.1 % apart): "
        "drop the field or fix one of them");
  CHECK(error_of("layers.json", llama_text(R"("layers": 40)")).rfind(": /layers: 40 given but the architecture "
                                                                    "implies 32", 0) == 0);
}

TEST_CASE("ArchitectureInput: each bad architecture field is one line at its JSON path", "[sim]")
{
  CHECK(error_of("kv.json", llama_text("", R"("kv_heads": 5)")) ==
        ": /architecture/kv_heads: 5 kv heads do not divide the 32 query heads");
  CHECK(error_of("topk.json", llama_text("", R"("experts": 8, "top_k": 9)")).rfind(
            ": /architecture/top_k: 9 experts per token but the layer has 8", 0) == 0);
  CHECK(error_of("no-topk.json", llama_text("", R"("experts": 8)")).rfind(": /architecture/top_k: missing", 0) == 0);
  CHECK(error_of("act.json", R"({"family": "llama", "architecture": {"layers": 2, "hidden": 8, "heads": 2,
      "ffn_hidden": 16, "activation": "relu", "vocab": 10, "seq_len": 4}})")
            .rfind(": /architecture/activation: 'relu' is not one of: gelu, swiglu", 0) == 0);
  CHECK(error_of("typo.json", llama_text("", R"("kv_head": 8)")).rfind(": /architecture/kv_head: unknown field", 0) ==
        0);
  CHECK(error_of("experts0.json", llama_text("", R"("experts": 0)")) ==
        ": /architecture/experts: must be >= 1 and <= 65536 (got 0)");
  CHECK(error_of("heads.json", R"({"family": "llama", "architecture": {"layers": 2, "hidden": 10, "heads": 4,
      "ffn_hidden": 16, "activation": "gelu", "vocab": 10, "seq_len": 4}})") ==
        ": /architecture/heads: 4 heads do not divide hidden 10: give head_dim");
  // 100,000 layers of hidden 10^7 would be ~10^20 parameters: refused before any 64-bit product is formed.
  CHECK(error_of("huge.json", R"({"family": "llama", "architecture": {"layers": 100000, "hidden": 10000000,
      "heads": 1, "ffn_hidden": 100000000, "activation": "swiglu", "vocab": 10, "seq_len": 4}})")
            .rfind(": /architecture: implies 3", 0) == 0);
}

TEST_CASE("ArchitectureInput: the families llama and mixtral need their architecture", "[sim]")
{
  CHECK(error_of("no-arch.json", R"({"family": "llama", "params": 1000, "layers": 2, "hidden": 8, "seq_len": 16,
      "tensors": 4, "flops_per_sample": 1e5})") ==
        ": /family: llama workloads are described by an architecture block: add one");
  CHECK(error_of("dense-mixtral.json", R"({"family": "mixtral")" + llama_text("").substr(18)) ==
        ": /family: mixtral needs architecture.experts > 1 (a dense model is family llama)");
  CHECK(error_of("ep-dense.json", llama_text(R"("defaults": {"ep": 2})")) ==
        ": /defaults/ep: expert parallelism needs a mixture of experts (architecture.experts > 1)");
  CHECK(error_of("ep-div.json", R"({"family": "mixtral")" +
                                    llama_text(R"("defaults": {"ep": 3})", R"("experts": 8, "top_k": 2)").substr(18)) ==
        ": /defaults/ep: 3 expert-parallel ranks do not divide the 8 experts");
  CHECK(error_of("sp.json", R"({"family": "gpt", "params": 1000, "layers": 2, "hidden": 8, "seq_len": 16,
      "tensors": 4, "flops_per_sample": 1e5, "defaults": {"sequence_parallel": true}})") ==
        ": /defaults/sequence_parallel: needs an architecture block (the activation formula it changes)");
}
