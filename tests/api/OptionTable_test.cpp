// The option tables (api/options/): what a front end was given becomes the command's request, each value parsed by its
// kind and checked against the range io/Limits.hpp gives it, and errors name the option in each front end's spelling.
#include "api/options/AdviseCommand.hpp"
#include "api/options/CollectiveCommand.hpp"
#include "api/options/CommandTables.hpp"
#include "api/options/OptionSpelling.hpp"
#include "api/options/SimulateCommand.hpp"
#include "tests/support/InputErrors.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace ccsim::api;
using ccsim::test::message_of;

namespace {
GivenValues simulate_given()
{
  GivenValues g(simulate_options().options());
  g.add("topology", "a100x8-ib100");
  g.add("workload", "bert-large");
  g.add("algorithm", "slamb");
  g.add("gpus", "64");
  return g;
}
} // namespace

TEST_CASE("OptionTable: given values fill their fields and a table default applies where nothing was given", "[api]")
{
  auto g = simulate_given();
  g.add("tp", "4");
  g.add("param", "k=0.01");
  g.add("param", "H=8");
  g.add("slow-gpu", "3:0.5");
  g.add_flag("links");
  g.add("param-prefetch", "off");
  const SimulateCommand c = build_simulate(g);
  CHECK(c.topology.name == "a100x8-ib100");
  CHECK(c.gpus == 64);
  CHECK(c.tp == 4);
  CHECK(!c.pp); // not given, no table default: the workload's
  CHECK(c.params == std::map<std::string, std::string>{{"H", "8"}, {"k", "0.01"}});
  CHECK(c.slow_gpus == std::map<int, double>{{3, 0.5}});
  CHECK(c.links);
  CHECK(c.param_prefetch == false);
  CHECK(c.fidelity == "fast");    // the table's default
  CHECK(c.straggler_seed == 1);   // not in the table's defaults: the request's own
  CHECK(!c.trace);
  CHECK(!c.trace_file);
}

TEST_CASE("OptionTable: a value outside its range is an error naming the option as the command line writes it", "[api]")
{
  auto g = simulate_given();
  g.add("micro-batch", "0");
  // io::range::kBatch is [1, 2^24] (io/Limits.hpp)
  CHECK(message_of([&] { build_simulate(g); }) == "--micro-batch: must be >= 1 and <= 16777216 (got 0)");
  auto h = simulate_given();
  h.add("fidelity", "slow");
  CHECK(message_of([&] { build_simulate(h); }) == "--fidelity: 'slow' is not one of: exact, fast");
  auto k = simulate_given();
  k.add("param", "k");
  CHECK(message_of([&] { build_simulate(k); }) == "--param: 'k' is not of the form key=value");
}

TEST_CASE("OptionTable: options that span each other are checked after every value is read", "[api]")
{
  auto g = simulate_given();
  g.add("plot", "somewhere");
  CHECK(message_of([&] { build_simulate(g); }) == "--plot: draws the link heat map: give --links too");
  GivenValues a(advise_options().options());
  a.add("topology", "v100x8-ib100");
  a.add("workload", "bert-large");
  a.add("gpus", "16");
  a.add_flag("no-prune");
  CHECK(message_of([&] { build_advise(a); }) == "--no-prune: only --search prunes: give --search too");
}

TEST_CASE("OptionTable: sizes take nccl-tests' K, M and G suffixes, powers of 1024", "[api]")
{
  GivenValues g(collective_options().options());
  g.add("topology", "a100x8-ib100");
  g.add("gpus", "8,16");
  g.add("minbytes", "1K");
  const CollectiveRequest c = build_collective(g);
  CHECK(c.minbytes == 1024);
  CHECK(c.maxbytes == 128ull * 1024 * 1024); // the table's default "128M"
  CHECK(c.gpus == std::vector<int>{8, 16});
  CHECK(c.stepfactor == 2);
  GivenValues big(collective_options().options());
  big.add("topology", "a100x8-ib100");
  big.add("gpus", "8");
  big.add("maxbytes", "2048G"); // 2^41 bytes: above io::range::kCollectiveBytes' 1 TiB = 2^40, i.e. 1024 G
  CHECK(message_of([&] { build_collective(big); }) == "--maxbytes: must be >= 0 and <= 1024 (got 2048)");
}

TEST_CASE("OptionTable: a list of whole numbers is read item by item and an empty name is an error", "[api]")
{
  GivenValues g(advise_options().options());
  g.add("topology", "v100x8-ib100");
  g.add("workload", "bert-large");
  g.add("gpus", "16");
  g.add("tp", "1,2");
  g.add("algorithms", "adam,onebit-adam");
  const AdviseCommand c = build_advise(g);
  CHECK(c.tp == std::vector<int>{1, 2});
  CHECK(c.algorithms == std::vector<std::string>{"adam", "onebit-adam"});
  CHECK(c.shape.gpus == 16);
  CHECK(c.jobs == 2);              // the table's default
  CHECK(c.epoch_samples == 1e6);   // the table's default "1e6"
  GivenValues bad(advise_options().options());
  bad.add("topology", "v100x8-ib100");
  bad.add("workload", "bert-large");
  bad.add("gpus", "16");
  bad.add("algorithms", "adam,,slamb");
  CHECK(message_of([&] { build_advise(bad); }) ==
        "--algorithms: 'adam,,slamb' has an empty item (give names separated by commas)");
}

TEST_CASE("OptionTable: an option given twice that does not repeat, or one the table lacks, is an error", "[api]")
{
  auto g = simulate_given();
  CHECK(message_of([&] { g.add("gpus", "8"); }) == "--gpus: is given twice");
  CHECK(message_of([&] { g.add("no-such", "1"); }) == "--no-such: is not an option of simulate");
  GivenValues none(simulate_options().options());
  CHECK(message_of([&] { build_simulate(none); }) == "--topology: is required but missing");
}

TEST_CASE("OptionSpelling: Python names each option by its keyword, in an error's where and in its text", "[api]")
{
  const CommandOptions& s = simulate_options().options();
  // where: the keyword alone; a key of a key=value option as a dict key
  CHECK(python_where("--gpus", s) == "gpus");
  CHECK(python_where("--global-batch", s) == "global_batch");
  CHECK(python_where("--slow-gpu", s) == "slow_gpus");
  CHECK(python_where("--param ep", s) == "params['ep']");
  CHECK(python_where("/a/topology.json", s) == "/a/topology.json");
  // text: a flag as =True, a value joined to its keyword, a comparison after the bare keyword
  CHECK(python_spelling("raise --tp or --pp, use a sharded algorithm, or pass --allow-oom", s) ==
        "raise tp= or pp=, use a sharded algorithm, or pass allow_oom=True");
  CHECK(python_spelling("rank 40 is not below --gpus 32", s) == "rank 40 is not below gpus=32");
  CHECK(python_spelling("it needs --pp >= 2", s) == "it needs pp >= 2");
  // not references to this command's options that Python has: left as they are
  CHECK(python_spelling("--no-such, a--gpus, --gpusx", s) == "--no-such, a--gpus, --gpusx");
  CHECK(python_spelling("ccsim simulate --help lists them", s) == "ccsim simulate --help lists them");
  const auto e = for_python(ccsim::io::InputError("--micro-batch", "", "must be >= 1 and <= 16777216 (got 0)"), s);
  CHECK(std::string(e.what()) == "micro_batch: must be >= 1 and <= 16777216 (got 0)");
  CHECK(e.where() == "micro_batch");
}

TEST_CASE("Command tables: names, keywords and letters are unique, every default parses, every kind has its bounds",
          "[api]")
{
  REQUIRE(command_tables().size() == 10); // list, simulate, experiment, advise, train, bench-kernels, collective,
                                          // calibrate, validate, bench-compute: cli/Commands.cpp's table
  for (const auto* t : command_tables()) {
    std::set<std::string> names, keywords, letters;
    for (const auto& o : t->options) {
      INFO(t->command << " --" << o.name);
      CHECK(names.insert(o.name).second);
      CHECK(keywords.insert(o.python()).second);
      if (o.short_name != '\0')
        CHECK(letters.insert(std::string(1, o.short_name)).second);
      if (o.kind == OptionKind::INTEGER || o.kind == OptionKind::NUMBER || o.kind == OptionKind::SIZE)
        CHECK(o.range.has_value());
      if (o.kind == OptionKind::CHOICE || o.kind == OptionKind::ON_OFF)
        CHECK(!o.choices.empty());
      if (o.default_text.empty())
        continue;
      // A default is a value the option accepts.
      if (o.kind == OptionKind::INTEGER || o.kind == OptionKind::SIZE)
        CHECK_NOTHROW(read_whole(o.default_text, o));
      else if (o.kind == OptionKind::NUMBER)
        CHECK_NOTHROW(read_number(o.default_text, o));
      else
        CHECK_NOTHROW(read_text(o.default_text, o));
    }
  }
}
