#pragma once
// Checked access to the JSON files ccsim reads (topologies, workloads, experiments): every problem
// becomes an InputError that prints as one line, `FILE: /json/path: what is wrong`.
// One header for the whole input layer; each part has its own:
//   io/InputError.hpp   the error type, printable(), echo(), dump_json()
//   io/JsonFile.hpp     reading and parsing files within the limits (io/Limits.hpp)
//   io/NumberInput.hpp  numbers checked against a Range, from JSON or from the command line
//   io/JsonObject.hpp   typed, checked access to the members of one object
//   io/Presets.hpp      the data folder and preset names

#include "io/InputError.hpp"
#include "io/JsonFile.hpp"
#include "io/JsonObject.hpp"
#include "io/Limits.hpp"
#include "io/NumberInput.hpp"
#include "io/Presets.hpp"
