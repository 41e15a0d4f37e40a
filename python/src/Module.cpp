// ccsim._core: the module the ccsim package (python/ccsim) wraps. The library's errors become the package's
// exceptions: io::InputError -> ccsim.InputError (its what() is the line the command line prints after "ccsim: "),
// api::RunStopped -> ccsim.RunStopped.
#include "Bindings.hpp"

#include "api/process/RunControl.hpp"
#include "io/InputError.hpp"

#include <nanobind/stl/string.h>

#include <exception>

namespace nb = nanobind;

NB_MODULE(_core, m)
{
  m.doc() = "ccsim's library (api/) for the ccsim package; use the package, not this module";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ccsim::io::InputError& e) {
      nb::object cls = nb::module_::import_("ccsim._errors").attr("InputError");
      nb::object err = cls(e.what(), e.where(), e.pointer(), e.problem());
      PyErr_SetObject(cls.ptr(), err.ptr());
    } catch (const ccsim::api::RunStopped& e) {
      nb::object cls = nb::module_::import_("ccsim._errors").attr("RunStopped");
      PyErr_SetObject(cls.ptr(), cls(e.what()).ptr());
    }
  });
  ccsim::python::bind_simulate(m);
  ccsim::python::bind_experiment(m);
  ccsim::python::bind_advise(m);
  ccsim::python::bind_collective(m);
  ccsim::python::bind_calibrate(m);
  ccsim::python::bind_train(m);
  ccsim::python::bind_validate(m);
  ccsim::python::bind_presets(m);
  ccsim::python::bind_options(m);
}
