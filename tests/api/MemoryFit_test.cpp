// Memory verdicts (api/run/MemoryFit.hpp) on hand-picked sizes: a run needing 10 GB per GPU, or 8 GB when every
// layer's activations are recomputed, judged against GPUs of 12, 10, 9 and 7 GB and against a topology that gives none.
#include "api/run/MemoryFit.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::api;

TEST_CASE("MemoryFit: the verdict compares the bytes needed with and without recomputation to the capacity", "[api]")
{
  CHECK(judge_memory(10e9, 8e9, 12e9).verdict == MemoryVerdict::FITS);
  CHECK(judge_memory(10e9, 8e9, 10e9).verdict == MemoryVerdict::FITS); // exactly full still fits (need <= capacity)
  CHECK(judge_memory(10e9, 8e9, 9e9).verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION);
  CHECK(judge_memory(10e9, 8e9, 7e9).verdict == MemoryVerdict::DOES_NOT_FIT);
  const auto unknown = judge_memory(10e9, 8e9, std::nullopt);
  CHECK(unknown.verdict == MemoryVerdict::UNKNOWN);
  CHECK_FALSE(unknown.capacity_gb);
  CHECK_FALSE(unknown.fits());
  // The numbers travel with the verdict, in GB (1e9 bytes).
  const auto tight = judge_memory(10e9, 8e9, 9e9);
  CHECK(tight.fits());
  CHECK(tight.gb_without_recomputation == 10);
  CHECK(tight.gb_with_recomputation == 8);
  CHECK(tight.capacity_gb == 9);
  CHECK_FALSE(judge_memory(10e9, 8e9, 7e9).fits());
}

TEST_CASE("MemoryFit: each verdict's text reads back as that verdict and no other text does", "[api]")
{
  for (const auto v : {MemoryVerdict::FITS, MemoryVerdict::FITS_WITH_RECOMPUTATION, MemoryVerdict::DOES_NOT_FIT,
                       MemoryVerdict::UNKNOWN})
    CHECK(memory_verdict_named(to_string(v)) == v);
  // The texts users have always read in `simulate` and results.json.
  CHECK(to_string(MemoryVerdict::FITS) == "yes");
  CHECK(to_string(MemoryVerdict::FITS_WITH_RECOMPUTATION) == "with activation recomputation");
  CHECK(to_string(MemoryVerdict::DOES_NOT_FIT) == "no");
  CHECK(to_string(MemoryVerdict::UNKNOWN) == "unknown (the topology has no gpu.memory_gb)");
  CHECK_FALSE(memory_verdict_named("maybe"));
  CHECK_FALSE(memory_verdict_named("Yes"));
}

TEST_CASE("MemoryFit: the headroom is kept from the capacity - 39.4 GB on a 40 GB GPU with 2 GB kept does not fit", "[api]")
{
  // Issue 41: a run at 39.4 of 40 GB must not be reported as fitting once the CUDA context and the allocator's
  // fragmentation are counted; 39.4 > 40 - 2 = 38, while recomputation's 30 GB fits.
  const auto fit = judge_memory(39.4e9, 30e9, 40e9, 2e9);
  CHECK(fit.verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION);
  CHECK(fit.capacity_gb == Approx(40));
  CHECK(fit.headroom_gb == Approx(2));
  CHECK(judge_memory(39.4e9, 39e9, 40e9, 2e9).verdict == MemoryVerdict::DOES_NOT_FIT);
  CHECK(judge_memory(38e9, 30e9, 40e9, 2e9).verdict == MemoryVerdict::FITS); // exactly the usable 38 GB
  CHECK(judge_memory(39.4e9, 30e9, 40e9).verdict == MemoryVerdict::FITS);    // no headroom stated
}
