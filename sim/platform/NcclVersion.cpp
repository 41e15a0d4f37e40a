// NCCL releases and what they run; see NcclVersion.hpp.
#include "sim/platform/NcclVersion.hpp"

#include "sim/platform/NcclConfig.hpp"

#include <fmt/format.h>

#include <cctype>

namespace ccsim::sim {

std::string NcclVersion::text() const { return fmt::format("{}.{}.{}", major, minor, patch); }

bool NcclVersion::at_least(int mj, int mn, int pt) const
{
  if (major != mj)
    return major > mj;
  if (minor != mn)
    return minor > mn;
  return patch >= pt;
}

std::optional<NcclVersion> parse_nccl_version(const std::string& text)
{
  // Up to three dot-separated numbers, then nothing, or a build suffix after '+' or '-' ("+cuda12.8", "-1").
  int parts[3] = {0, 0, 0};
  int count    = 0;
  std::size_t i = 0;
  while (count < 3) {
    const std::size_t start = i;
    long value              = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 4)
      value = value * 10 + (text[i++] - '0');
    if (i == start || (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))))
      return std::nullopt; // no digits, or more than four
    parts[count++] = static_cast<int>(value);
    if (i < text.size() && text[i] == '.' && count < 3) {
      ++i;
      continue;
    }
    break;
  }
  if (count < 2 || (i < text.size() && text[i] != '+' && text[i] != '-'))
    return std::nullopt;
  if (parts[0] != 2)
    return std::nullopt;
  return NcclVersion{parts[0], parts[1], parts[2]};
}

bool release_has(const std::optional<NcclVersion>& v, Algo a)
{
  if (!v)
    return true;
  switch (a) {
  case Algo::TREE: return v->at_least(2, 4, 2);
  case Algo::NVLS: return v->at_least(2, 17, 1);
  case Algo::NVLS_TREE: return v->at_least(2, 18, 1);
  default: return true;
  }
}

bool release_has(const std::optional<NcclVersion>& v, Proto p)
{
  return !v || p != Proto::LL128 || v->at_least(2, 5, 6);
}

std::string added_in(Algo a)
{
  switch (a) {
  case Algo::TREE: return "the tree from 2.4.2";
  case Algo::NVLS: return "NVLS from 2.17.1";
  case Algo::NVLS_TREE: return "NVLS-Tree from 2.18.1";
  default: return to_string(a) + " in every release";
  }
}

std::string added_in(Proto p) { return p == Proto::LL128 ? "LL128 from 2.5.6" : to_string(p) + " in every release"; }

} // namespace ccsim::sim
