#pragma once
// A workload's `architecture` block (workloads/SCHEMA.md): read and range-checked field by field, and the size fields
// it implies (params, layers, hidden, heads, seq_len, vocab, tensors, flops_per_sample) filled into the workload
// document, or checked against the values the document gives.

#include "sim/model/TransformerArchitecture.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace ccsim::sim {

/// The document's `architecture` object, checked; nullopt when the workload has none. Throws io::InputError naming
/// `path` and the field's JSON path.
std::optional<TransformerArchitecture> read_architecture(const nlohmann::json& doc, const std::string& path);

/// `doc` with every size field the architecture implies: a field the document leaves out is derived; one it gives
/// must agree with the derivation within 0.1 % (io::limits::kArchitectureAgreement) and is kept as given, else an
/// io::InputError names both values.
nlohmann::json with_architecture_fields(const nlohmann::json& doc, const TransformerArchitecture& arch,
                                        const std::string& path);

} // namespace ccsim::sim
