#pragma once
// Deterministic mutations of a JSON document (issue 11): at every JSON pointer, swap the value's type, put an
// extreme or non-finite number there, delete it, give it bad UTF-8 or a 100,000-deep nesting; add a huge or
// non-UTF-8 key to every object, give each object's first key twice; truncate the text. Each mutation is the whole mutated file text, with a label
// saying what was done where, so that a failing case can be reproduced by hand.

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccsim::test {

struct Mutation {
  std::string label; // "/nic/count: int64 max"
  std::string text;  // the mutated file
  std::string duplicate_key = {}; // the JSON pointer of a key this mutation gives twice (it must be rejected there), or ""
};

namespace detail {

/// A key as a JSON pointer token ("~" -> "~0", "/" -> "~1", RFC 6901).
inline std::string pointer_token(const std::string& key)
{
  std::string out;
  for (char c : key)
    out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

inline void collect_pointers(const nlohmann::json& v, const std::string& at, std::vector<std::string>& out)
{
  out.push_back(at);
  if (v.is_object())
    for (const auto& [key, child] : v.items())
      collect_pointers(child, at + "/" + pointer_token(key), out);
  else if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i)
      collect_pointers(v[i], at + "/" + std::to_string(i), out);
}

/// `doc` with the value at `pointer` replaced by `raw` (JSON text, possibly invalid on purpose).
inline std::string with_raw_value(nlohmann::json doc, const std::string& pointer, const std::string& raw)
{
  const std::string marker = "@@ccsim-mutation@@";
  if (pointer.empty())
    return raw;
  doc[nlohmann::json::json_pointer(pointer)] = marker;
  std::string text = doc.dump(1);
  const auto at    = text.find("\"" + marker + "\"");
  return text.replace(at, marker.size() + 2, raw);
}

} // namespace detail

/// Every mutation of `doc`, in a fixed order.
inline std::vector<Mutation> mutations_of(const nlohmann::json& doc)
{
  struct Raw {
    const char* name;
    std::string text;
  };
  const std::vector<Raw> values = {
      {"string", "\"x\""},
      {"empty string", "\"\""},
      {"true", "true"},
      {"null", "null"},
      {"empty array", "[]"},
      {"empty object", "{}"},
      {"zero", "0"},
      {"minus one", "-1"},
      {"one half", "0.5"},
      {"2^31", "2147483648"},
      {"2^32 + 64", "4294967360"},
      {"int64 max", "9223372036854775807"},
      {"uint64 max", "18446744073709551615"},
      {"-int64 max", "-9223372036854775807"},
      {"1e308", "1e308"},
      {"-1e308", "-1e308"},
      {"1e999 (overflows to inf)", "1e999"},
      {"denormal 1e-320", "1e-320"},
      {"9.2e18", "9.2e18"},
      {"NaN (not JSON)", "NaN"},
      {"bad UTF-8 string", "\"\xff\xfe\xc3\""},
  };
  std::vector<std::string> pointers;
  detail::collect_pointers(doc, "", pointers);

  std::vector<Mutation> out;
  for (const auto& p : pointers) {
    const std::string where = p.empty() ? "(root)" : p;
    for (const auto& v : values)
      out.push_back({where + ": " + v.name, detail::with_raw_value(doc, p, v.text)});
    if (!p.empty()) {
      const nlohmann::json::json_pointer ptr(p);
      auto d        = doc;
      auto& parent  = d.at(ptr.parent_pointer());
      if (parent.is_object())
        parent.erase(ptr.back());
      else
        parent.erase(static_cast<std::size_t>(std::stoul(ptr.back())));
      out.push_back({where + ": deleted", d.dump(1)});
    }
    const auto& here = doc.at(nlohmann::json::json_pointer(p));
    if (here.is_object()) {
      // Keys are spliced in as raw text: a non-UTF-8 key cannot live in a json object without dump() throwing.
      const std::string body = here.empty() ? "" : ",";
      const std::string inner = here.dump(1);
      const auto close        = inner.rfind('}');
      const std::string huge_key = inner.substr(0, close) + body + "\"" + std::string(100000, 'k') + "\": 1}";
      const std::string bad_key  = inner.substr(0, close) + body + "\"\xff\xfe\": 1}";
      out.push_back({where + ": a 100,000-character key", detail::with_raw_value(doc, p, huge_key)});
      out.push_back({where + ": a non-UTF-8 key", detail::with_raw_value(doc, p, bad_key)});
      if (!here.empty()) { // its first key again, with its own value: a hand edit pasted twice
        const auto first       = here.begin();
        const std::string twice = inner.substr(0, close) + "," + nlohmann::json(first.key()).dump() + ": " +
                                  first.value().dump() + "}";
        out.push_back({where + ": its first key given twice", detail::with_raw_value(doc, p, twice),
                       p + "/" + detail::pointer_token(first.key())});
      }
    }
  }
  // Deep nesting at the root's first member only: each costs 200 KB of text, and the reader's depth check is the
  // same wherever it sits.
  if (pointers.size() > 1)
    out.push_back({pointers[1] + ": 100,000-deep array",
                   detail::with_raw_value(doc, pointers[1], std::string(100000, '[') + std::string(100000, ']'))});
  const std::string whole = doc.dump(1);
  out.push_back({"(file): truncated at half", whole.substr(0, whole.size() / 2)});
  out.push_back({"(file): empty", ""});
  out.push_back({"(file): a JSON string, not an object", "\"topology\""});
  return out;
}

/// The mutation tests run every mutation_stride()-th case, counted across presets: CCSIM_TEST_MUTATION_STRIDE, a whole
/// number from 1 to 1000, or 1 (every case) when unset. scripts/test-sanitizers.sh sets 13: under ASan and UBSan these
/// tests took 37 minutes of CI's 90, and a prime stride still walks across files, pointers and kinds of mutation.
inline std::size_t mutation_stride()
{
  const char* text = std::getenv("CCSIM_TEST_MUTATION_STRIDE");
  if (text == nullptr || *text == '\0')
    return 1;
  char* end             = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 1 || value > 1000)
    throw std::invalid_argument(std::string("CCSIM_TEST_MUTATION_STRIDE=") + text +
                                ": not a whole number from 1 to 1000");
  return static_cast<std::size_t>(value);
}

/// Which cases the sample runs, counted in the order they are offered: every mutation_stride()-th, from the first.
class MutationSample {
public:
  bool runs_next() { return index_++ % stride_ == 0; }

private:
  std::size_t stride_ = mutation_stride();
  std::size_t index_  = 0;
};

} // namespace ccsim::test
