#pragma once
// How each front end names an option in a message. The library names an option by its reference, "--gpus"
// (Option::ref), wherever it is: an error's `where`, or inside its text ("raise --tp or --pp, or pass --allow-oom").
// The command line shows references as they are: they are its flags. Python renders each as its keyword, so an error
// names what the caller typed:
//
//   where   "--gpus"                 ->  "gpus"
//           "--param ep"             ->  "params['ep']"      (a key of a key=value option)
//   text    "--allow-oom" (a flag)   ->  "allow_oom=True"
//           "--gpus 8", "--steps FILE" -> "gpus=8", "steps=FILE"   (a value follows)
//           "--tp or --pp"           ->  "tp= or pp="
//           "needs --pp >= 2"        ->  "needs pp >= 2"     (a comparison follows)
//
// Only the references to the command's own options that Python has are rendered (the command line's own, --help or
// --format, are the command line's words); the rest of the message is the command line's.

#include "api/options/GivenValues.hpp"

#include "io/InputError.hpp"

#include <string>

namespace ccsim::api {

/// `text` with every reference to an option of `options` in Python's spelling (as in the header's table).
std::string python_spelling(const std::string& text, const CommandOptions& options);
/// An error's `where` in Python's spelling: a reference that is the whole of it (with a key after a key=value option's)
/// becomes the keyword; a file name stays as it is.
std::string python_where(const std::string& where, const CommandOptions& options);
/// The same error with its `where` and problem in Python's spelling (the JSON pointer is the file's, unchanged).
io::InputError for_python(const io::InputError& error, const CommandOptions& options);

} // namespace ccsim::api
