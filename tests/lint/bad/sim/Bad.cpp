// Fixture for tests/lint/lint_catches_each_rule.sh (never compiled).
double parse(const std::string& text)
{
  return std::stod(text);
}
