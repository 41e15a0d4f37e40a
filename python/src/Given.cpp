// Python's arguments as given values (Given.hpp).
#include "Given.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::python {

api::GivenValues given_values(const api::CommandOptions& options, const Texts& texts, const Documents& documents)
{
  api::GivenValues given(options);
  for (const auto& [name, values] : texts) {
    if (values.empty())
      given.add_flag(name);
    for (const auto& v : values)
      given.add(name, v);
  }
  for (const auto& [name, doc] : documents)
    given.add_document(name, doc.first, io::parse_json_text(doc.second, doc.first));
  return given;
}

} // namespace ccsim::python
