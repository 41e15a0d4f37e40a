#pragma once
// A Python callable the library calls back while it runs with the GIL released (progress of a long run).

#include <nanobind/nanobind.h>

#include <optional>
#include <utility>

namespace ccsim::python {

namespace nb = nanobind;

/// Calls `fn` with the GIL held. Where the library cannot stop in the middle (an experiment's or advise's process
/// pool has children running), the first exception the callable raises is kept, later calls are skipped, and
/// rethrow_kept() raises it once the run is over. Where it can (a training loop), call_or_throw lets it through.
class Callback {
public:
  explicit Callback(nb::object fn) : fn_(std::move(fn)) {}
  bool empty() const { return fn_.is_none(); }

  template <typename... Args>
  void call_or_keep(Args&&... args)
  {
    nb::gil_scoped_acquire gil;
    if (fn_.is_none() || kept_)
      return;
    try {
      fn_(std::forward<Args>(args)...);
    } catch (nb::python_error& e) {
      kept_.emplace(std::move(e));
    }
  }

  template <typename... Args>
  void call_or_throw(Args&&... args)
  {
    nb::gil_scoped_acquire gil;
    if (!fn_.is_none())
      fn_(std::forward<Args>(args)...);
  }

  /// Raises what call_or_keep kept (the GIL must be held: call it after the run, outside the released section).
  void rethrow_kept()
  {
    if (kept_) {
      nb::python_error e = std::move(*kept_);
      kept_.reset();
      throw e;
    }
  }

private:
  nb::object fn_;
  std::optional<nb::python_error> kept_;
};

} // namespace ccsim::python
