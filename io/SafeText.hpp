#pragma once
// User text made safe to print: a name or description read from a file or a flag may hold ESC, BEL or other
// control characters, which a terminal would obey (retitle the window, clear the screen) rather than show. Every
// printer goes through here: the tables and lines on stdout and stderr (install_safe_output, once in main), CSV
// cells, figure titles and progress lines (safe_text). Error messages have their own cap and escaping (printable()).

#include <iosfwd>
#include <string>
#include <string_view>

namespace ccsim::io {

/// `text` with every control character escaped as \xNN: C0 (newline and tab included: a cell is one line), DEL, the
/// C1 range U+0080-U+009F (0x9B is a one-byte CSI to some terminals) and bytes that are not valid UTF-8. Printable
/// text, UTF-8 included, is unchanged.
std::string safe_text(std::string_view text);

/// The same for a stream of lines: newline and tab pass, as the tables and messages need them.
std::string safe_lines(std::string_view text);

/// Makes std::cout and std::cerr escape what safe_lines escapes, whatever is written to them; call once, first thing
/// in main. (The progress line writes its own terminal codes to stderr through stdio, not std::cerr.)
void install_safe_output();

} // namespace ccsim::io
