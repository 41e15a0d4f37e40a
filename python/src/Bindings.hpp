#pragma once
// The pieces of the ccsim._core module, one file per question, as cli/ has one cmd_<name>.cpp per command. Every
// command takes Python's arguments as its given values (texts and JSON documents by option name: Given.hpp), reads
// them with the command's own builder (api/options/), runs the library with the GIL released, and answers with the
// JSON document the command's --format json prints, which ccsim/ turns into Python objects.

#include <nanobind/nanobind.h>

namespace ccsim::python {

namespace nb = nanobind;

void bind_simulate(nb::module_& m);    // simulate, load_input (SimulateBinding.cpp)
void bind_experiment(nb::module_& m);  // experiment, load_experiment (ExperimentBinding.cpp)
void bind_advise(nb::module_& m);      // advise (AdviseBinding.cpp)
void bind_collective(nb::module_& m);  // collective (CollectiveBinding.cpp)
void bind_calibrate(nb::module_& m);   // calibrate (CalibrateBinding.cpp)
void bind_train(nb::module_& m);       // train (TrainBinding.cpp)
void bind_validate(nb::module_& m);    // validate, bench_kernels, bench_compute (ValidateBinding.cpp)
void bind_presets(nb::module_& m);     // algorithms, presets, data_dir, input_error_message (PresetsBinding.cpp)
void bind_options(nb::module_& m);     // options, commands: every command's option table (OptionsBinding.cpp)

} // namespace ccsim::python
