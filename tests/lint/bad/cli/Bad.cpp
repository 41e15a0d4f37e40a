// Fixture for tests/lint/lint_catches_each_rule.sh: one line per banned pattern (never compiled).
void bad(const std::string& path, nlohmann::json& doc)
{
  std::system(("python3 '" + path + "'").c_str());
  desc.add_options()("gpus", po::value<int>(), "number of GPUs");
  std::cout << doc.dump(2);
}
