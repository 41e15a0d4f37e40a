// The given values of one command (GivenValues.hpp).
#include "api/options/GivenValues.hpp"

#include "io/InputError.hpp"

namespace ccsim::api {

const Option* CommandOptions::find(const std::string& name) const
{
  for (const auto& o : options)
    if (o.name == name)
      return &o;
  return nullptr;
}

const std::string& GivenValue::text() const
{
  static const std::string none;
  return texts.empty() ? none : texts.front();
}

const Option& GivenValues::known(const std::string& name) const
{
  const Option* o = options_->find(name);
  if (o == nullptr)
    throw io::InputError("--" + name, "", "is not an option of " + options_->command);
  return *o;
}

void GivenValues::add(const std::string& name, std::string text)
{
  const Option& o = known(name);
  auto& v         = values_[name];
  if (!v.texts.empty() && !o.repeats)
    throw io::InputError(o.ref(), "", "is given twice");
  v.texts.push_back(std::move(text));
}

void GivenValues::add_flag(const std::string& name)
{
  (void)known(name);
  values_[name];
}

void GivenValues::add_document(const std::string& name, std::string label, nlohmann::json document)
{
  (void)known(name);
  auto& v    = values_[name];
  v.texts    = {std::move(label)};
  v.document = std::move(document);
}

const GivenValue* GivenValues::find(const std::string& name) const
{
  const auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

std::optional<std::string> GivenValues::text_or_default(const std::string& name) const
{
  const Option& o = known(name);
  if (const auto* v = find(name))
    return v->text();
  if (!o.default_text.empty() && !o.default_shown_only)
    return o.default_text;
  return std::nullopt;
}

} // namespace ccsim::api
