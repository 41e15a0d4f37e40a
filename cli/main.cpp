// ccsim: one binary, subcommands as in git. Common work happens once here: find the subcommand, catch
// InputError (one line, exit 2), a stopped run (one line, exit 3 past --time-limit, 130 on SIGINT, 143 on SIGTERM)
// and anything unexpected (one line, exit 1), flush stdout.
#include "cli/Command.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/process/RunControl.hpp"
#include "numerics/ParallelFor.hpp"
#include "numerics/SimdLevel.hpp"
#include "io/JsonInput.hpp"
#include "io/SafeText.hpp"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <iostream>
#include <string>
#include <vector>

namespace {
void print_usage(std::ostream& out)
{
  out << "ccsim — predict and check communication-compressed distributed training\n\n"
         "usage: ccsim <command> [options]   (ccsim <command> --help for its options)\n\ncommands:\n";
  for (const auto& c : ccsim::cli::commands())
    out << "  " << c.name << std::string(16 - std::strlen(c.name), ' ') << c.summary << "\n";
}
} // namespace

int main(int argc, char** argv)
{
  // Names and descriptions from input files reach the tables: a control character in one is shown, never obeyed.
  ccsim::io::install_safe_output();
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return 0;
  }
  if (name == "--version") {
    std::cout << "ccsim 0.1.0\n";
    return 0;
  }
  ccsim::api::install_stop_handlers();
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : ccsim::cli::commands()) {
    if (name != c.name)
      continue;
    try {
      // The environment is input too: a thread count the numerics would otherwise ignore is an error here.
      if (const char* threads = std::getenv("CCSIM_THREADS"); threads != nullptr)
        ccsim::io::parse_integer(threads, ccsim::io::Range{1, 1024}, "CCSIM_THREADS");
      if (const char* simd = std::getenv("CCSIM_SIMD"); simd != nullptr && !ccsim::numerics::parse_simd_level(simd))
        throw ccsim::io::InputError("CCSIM_SIMD", "", ccsim::io::echo(simd) + " is not one of: scalar, avx2, avx512");
      if (const char* sym = std::getenv("CCSIM_SYMMETRY"); sym != nullptr && std::string(sym) != "on" &&
                                                            std::string(sym) != "off")
        throw ccsim::io::InputError("CCSIM_SYMMETRY", "", ccsim::io::echo(sym) + " is not one of: on, off");
      if (const char* nodes = std::getenv("CCSIM_PLATFORM_NODES"); nodes != nullptr && std::string(nodes) != "all") {
        try {
          ccsim::io::parse_integer(nodes, ccsim::io::Range{1, 1 << 20}, "CCSIM_PLATFORM_NODES");
        } catch (const ccsim::io::InputError&) {
          throw ccsim::io::InputError("CCSIM_PLATFORM_NODES", "",
                                      ccsim::io::echo(nodes) + " is not 'all' or a number of nodes from 1 to 1048576");
        }
      }
      const int rc = c.run(args);
      std::cout.flush();
      if (rc == 0 && ccsim::api::stop_signal() != 0) // a signal came after the last check (e.g. while plotting)
        throw ccsim::api::stop_exception("");
      return rc;
    } catch (const ccsim::api::RunStopped& e) {
      // What finished is already written (experiment results, a train run's finished part); one line says where.
      std::cout.flush();
      std::cerr << "ccsim " << name << ": " << e.what() << "\n";
      return e.exit_code();
    } catch (const ccsim::io::InputError& e) {
      std::cout.flush();
      std::cerr << "ccsim: " << e.what() << "\n";
      return ccsim::api::kExitBadInput;
    } catch (const ccsim::api::OutputFailed& e) { // the input was fine; a result could not be written
      std::cout.flush();
      std::cerr << "ccsim " << name << ": " << e.what() << "\n";
      return ccsim::api::kExitOutputFailed;
    } catch (const ccsim::api::FigureFailed& e) { // the results are written; their figure is not
      std::cout.flush();
      std::cerr << "ccsim " << name << ": " << e.what() << "\n";
      return ccsim::api::kExitFigureFailed;
    } catch (const ccsim::numerics::ThreadStartError& e) { // a resource limit, not a bug: no "internal error"
      std::cout.flush();
      std::cerr << "ccsim " << name << ": " << e.what() << "\n";
      return 1;
    } catch (const ccsim::api::OutOfMemory& e) { // a resource limit with the size asked for, not a bug
      std::cout.flush();
      std::cerr << "ccsim " << name << ": " << e.what() << "\n";
      return 1;
    } catch (const std::bad_alloc&) {
      std::cout.flush();
      std::cerr << "ccsim " << name << ": out of memory (an allocation failed): the run needs more memory than this "
                   "machine or its limit (ulimit -v) gives\n";
      return 1;
    } catch (const std::exception& e) {
      std::cout.flush();
      std::cerr << "ccsim " << name << ": internal error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "ccsim: unknown command '" << name << "' (try ccsim --help)\n";
  return 2;
}
