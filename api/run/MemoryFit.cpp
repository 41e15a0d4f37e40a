// Memory verdicts; see MemoryFit.hpp.
#include "api/run/MemoryFit.hpp"

#include <array>
#include <utility>

namespace ccsim::api {

namespace {
constexpr std::array<std::pair<MemoryVerdict, const char*>, 4> kTexts = {{
    {MemoryVerdict::FITS, "yes"},
    {MemoryVerdict::FITS_WITH_RECOMPUTATION, "with activation recomputation"},
    {MemoryVerdict::DOES_NOT_FIT, "no"},
    {MemoryVerdict::UNKNOWN, "unknown (the topology has no gpu.memory_gb)"},
}};
} // namespace

MemoryFit judge_memory(double bytes_without, double bytes_with, std::optional<double> capacity_bytes,
                       double headroom_bytes)
{
  MemoryFit fit;
  fit.gb_without_recomputation = bytes_without / 1e9;
  fit.gb_with_recomputation    = bytes_with / 1e9;
  if (!capacity_bytes)
    return fit;
  const double cap = *capacity_bytes - headroom_bytes; // what the model may use
  fit.capacity_gb  = *capacity_bytes / 1e9;
  fit.headroom_gb  = headroom_bytes / 1e9;
  fit.verdict      = bytes_without <= cap ? MemoryVerdict::FITS
                     : bytes_with <= cap  ? MemoryVerdict::FITS_WITH_RECOMPUTATION
                                          : MemoryVerdict::DOES_NOT_FIT;
  return fit;
}

std::string to_string(MemoryVerdict verdict)
{
  for (const auto& [v, text] : kTexts)
    if (v == verdict)
      return text;
  return "unknown";
}

std::optional<MemoryVerdict> memory_verdict_named(const std::string& text)
{
  for (const auto& [v, t] : kTexts)
    if (text == t)
      return v;
  return std::nullopt;
}

} // namespace ccsim::api
