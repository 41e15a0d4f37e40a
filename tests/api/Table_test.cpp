// Tables narrower than a limit: long text cells wrap at spaces, numbers are never cut, and no limit keeps one line.
#include "api/output/Table.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using ccsim::api::Table;
using ccsim::api::wrap;
using ccsim::test::lines_of_text;

TEST_CASE("Table: a table wider than the limit wraps its widest text column and keeps numbers whole", "[api]")
{
  Table t({"name", "value", "why"});
  t.add_row({"a", "123456789012", "one two three four five six seven eight nine ten eleven twelve"});
  t.add_row({"b", "7", "short"});
  std::ostringstream wide, narrow;
  t.print(wide);
  t.print(narrow, 40);
  const auto w = lines_of_text(wide.str());
  CHECK(w.size() == 4); // header, rule, two rows
  const auto n = lines_of_text(narrow.str());
  for (const auto& l : n)
    CHECK(l.size() <= 40);
  // widths: name 4, value 12 (a number is never cut), why 40 - 4 - 12 - 2 x 2 = 20; "one two three four five" is 23
  // characters, so the row takes 3 lines ("one two three four", "five six seven eight", "nine ten eleven twelve" is
  // 22 > 20: "nine ten eleven", "twelve").
  REQUIRE(n.size() == 2 + 4 + 1);
  CHECK(n[2] == "a     123456789012  one two three four");
  CHECK(n[3] == "                    five six seven eight");
  CHECK(n[4] == "                    nine ten eleven");
  CHECK(n[5] == "                    twelve");
  CHECK(n[6] == "b                7  short");
}

TEST_CASE("Table: wrap breaks at spaces and cuts a word longer than the width", "[api]")
{
  CHECK(wrap("abc def", 10) == std::vector<std::string>{"abc def"});
  CHECK(wrap("abc def", 5) == std::vector<std::string>{"abc", "def"});
  CHECK(wrap("abcdefghij", 4) == std::vector<std::string>{"abcd", "efgh", "ij"});
}
