// The pre-training cache; see PretrainCache.hpp.
#include "api/training/PretrainCache.hpp"

#include "algorithms/Training.hpp"
#include "api/output/Checksum.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ccsim::api {

namespace {
constexpr char kMagic[8] = {'C', 'C', 'S', 'I', 'M', 'P', 'T', '1'};
constexpr int kFormatVersion = 2; // bump when the pre-training itself changes (its loop, its defaults, its arithmetic:
                                   // 2 = the fixed-order numerics of issue 42)

std::string read_corpus(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  if (!in.good() && !in.eof())
    throw io::InputError("--task finetune", "", fmt::format("cannot read the pre-training text {}", io::echo(path)));
  if (s.str().size() < 10000)
    throw io::InputError("--task finetune", "",
                         fmt::format("the pre-training text {} is missing or shorter than 10,000 bytes "
                                     "(Debian's base-files package installs it)",
                                     io::echo(path)));
  return s.str();
}

/// The parameters in `file` if it is a complete cache file for `key` of `n` values; otherwise why not.
std::string try_read(const std::string& file, std::uint64_t key, numerics::Vec& out)
{
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    return "absent";
  if (!S_ISREG(st.st_mode)) // a FIFO would block the read; the new file replaces it
    return "not a regular file";
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return "unreadable";
  char magic[8];
  std::uint64_t file_key = 0, n = 0, sum = 0;
  in.read(magic, 8).read(reinterpret_cast<char*>(&file_key), 8).read(reinterpret_cast<char*>(&n), 8);
  if (!in || std::memcmp(magic, kMagic, 8) != 0)
    return "not a ccsim pre-training file";
  if (file_key != key)
    return "made for other settings";
  if (n == 0 || n > (1u << 28))
    return "implausible size";
  std::string bytes(n * sizeof(float), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())).read(reinterpret_cast<char*>(&sum), 8);
  if (!in)
    return "truncated";
  if (in.peek() != std::char_traits<char>::eof())
    return "longer than its header says";
  if (fnv1a64(bytes) != sum)
    return "checksum mismatch";
  out.resize(static_cast<long>(n));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  // A checksum says the bytes are the ones written, not that they are weights: a diverged pre-training is never
  // written, so such a file was made by something else.
  if (!out.allFinite())
    return "holding non-finite weights";
  return "";
}

void write_atomically(const std::string& file, std::uint64_t key, const numerics::Vec& params)
{
  const std::string tmp = fmt::format("{}.tmp{}", file, getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::string_view bytes(reinterpret_cast<const char*>(params.data()), params.size() * sizeof(float));
    const std::uint64_t n = static_cast<std::uint64_t>(params.size()), sum = fnv1a64(bytes);
    out.write(kMagic, 8).write(reinterpret_cast<const char*>(&key), 8).write(reinterpret_cast<const char*>(&n), 8);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())).write(reinterpret_cast<const char*>(&sum), 8);
    if (!out.flush())
      throw io::InputError("--cache-dir", "", fmt::format("cannot write {}", io::echo(tmp)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec)
    throw io::InputError("--cache-dir", "", fmt::format("cannot move {} into place: {}", io::echo(tmp), ec.message()));
}
} // namespace

std::string default_cache_dir()
{
  if (const char* d = std::getenv("CCSIM_CACHE_DIR"); d != nullptr && *d != '\0')
    return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
    return (std::filesystem::path(x) / "ccsim").string();
  const char* home = std::getenv("HOME");
  return (std::filesystem::path(home != nullptr && *home != '\0' ? home : "/tmp") / ".cache" / "ccsim").string();
}

Pretrained pretrained_transformer(const PretrainSpec& spec, const std::string& cache_dir)
{
  const std::string text = read_corpus(spec.corpus);
  Pretrained r;
  r.key = fnv1a64(fmt::format("ccsim-pretrain v{} model=tiny-transformer algorithm=adam lr={} steps={} batch={} "
                              "workers={} seed={} corpus_fnv1a64={:016x}",
                              kFormatVersion, kPretrainLr, spec.steps, spec.global_batch, spec.workers, spec.seed,
                              fnv1a64(text)));
  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  if (ec)
    throw io::InputError("--cache-dir", "", fmt::format("cannot create {}: {}", io::echo(cache_dir), ec.message()));
  r.file = (std::filesystem::path(cache_dir) / fmt::format("pretrain-{:016x}.bin", r.key)).string();
  numerics::Vec params;
  const std::string why = try_read(r.file, r.key, params);
  if (why.empty()) {
    r.params     = std::make_shared<const numerics::Vec>(std::move(params));
    r.from_cache = true;
    return r;
  }
  if (why != "absent")
    r.note = fmt::format("{} was {}: pre-trained again", r.file, why);
  algorithms::TrainConfig c;
  c.algorithm    = "adam";
  c.model        = "tiny-transformer";
  c.steps        = spec.steps;
  c.global_batch = spec.global_batch;
  c.workers      = spec.workers;
  c.seed         = spec.seed;
  c.text         = text;
  c.hyper        = {{"lr", kPretrainLr}};
  c.eval_every   = spec.steps; // only the final loss matters here
  numerics::Vec trained; // worker 0's final parameters (every worker holds the same after a dense all-reduce)
  c.keep_params = &trained;
  (void)algorithms::train(c);
  if (trained.allFinite()) // a diverged pre-training is never cached (a reader refuses non-finite weights too)
    write_atomically(r.file, r.key, trained);
  r.params = std::make_shared<const numerics::Vec>(std::move(trained));
  return r;
}

} // namespace ccsim::api
