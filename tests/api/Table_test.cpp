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

TEST_CASE("Table: a group's title stands over its columns, which widen to hold it", "[api]")
{
  // Columns: "row" (3), then "paper" / "pred." / "err" under "allreduce (ms)" (14 characters). The three columns
  // span 5 + 2 + 5 + 2 + 3 = 17 >= 14, so nothing widens; the title starts where "paper" does, at 3 + 2 = 5.
  Table t({"row", "paper", "pred.", "err"});
  t.group(1, 3, "allreduce (ms)");
  t.add_row({"a", "3579", "3702", "+3.4"});
  std::ostringstream out;
  t.print(out, 160);
  const auto n = lines_of_text(out.str());
  REQUIRE(n.size() == 4);
  CHECK(n[0] == "     allreduce (ms)");
  CHECK(n[1] == "row  paper  pred.  err");
  CHECK(n[3] == "a     3579   3702  +3.4");
  // A title longer than its columns: "step time (s)" (13) over one column of "p" (1) widens that column to 13.
  Table u({"x", "p"});
  u.group(1, 1, "step time (s)");
  u.add_row({"a", "1"});
  std::ostringstream narrow;
  u.print(narrow, 160);
  const auto m = lines_of_text(narrow.str());
  REQUIRE(m.size() == 4);
  CHECK(m[0] == "   step time (s)");
  CHECK(m[2] == "-  -------------");
  CHECK(m[3] == "a              1");
}
