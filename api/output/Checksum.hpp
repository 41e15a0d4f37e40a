#pragma once
// FNV-1a 64 (offset 14695981039346656037, prime 1099511628211): tiny, dependency-free and stable across platforms.
// It names configurations (experiment resume, the pre-training cache) and checks what ccsim wrote; it guards against
// accidents (a changed preset, a torn file), not against an adversary.

#include <cstdint>
#include <string_view>

namespace ccsim::api {

std::uint64_t fnv1a64(std::string_view bytes);

} // namespace ccsim::api
