#pragma once
// Checked access to the JSON files ccsim reads (topologies, workloads, experiments): every problem
// becomes an InputError that prints as one line, `FILE: /json/path: what is wrong`.
// One header for the whole input layer; each part has its own:
//   sim/io/InputError.hpp   the error type, printable(), echo(), dump_json()
//   sim/io/JsonFile.hpp     reading and parsing files within the limits (sim/io/Limits.hpp)
//   sim/io/NumberInput.hpp  numbers checked against a Range, from JSON or from the command line
//   sim/io/JsonObject.hpp   typed, checked access to the members of one object
//   sim/io/Presets.hpp      the data folder and preset names

#include "sim/io/InputError.hpp"
#include "sim/io/JsonFile.hpp"
#include "sim/io/JsonObject.hpp"
#include "sim/io/Limits.hpp"
#include "sim/io/NumberInput.hpp"
#include "sim/io/Presets.hpp"
