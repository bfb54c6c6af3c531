// SPDX-License-Identifier: MIT
// How the msprof command speaks: every line through one console (so a
// progress bar is never written over), and the two ways a command fails.
#ifndef MSPROF_CLI_CONSOLE_HPP
#define MSPROF_CLI_CONSOLE_HPP

#include <iostream>
#include <mutex>
#include <string>

namespace msprof_cli {

/// Owns stdout and stderr while a progress bar is drawn: every line msprof
/// prints goes through say(), which clears the bar, writes the line on its own
/// and redraws the bar, under one mutex (the bar thread and the workers print).
class console {
 public:
  static console& get() {
    static console c;
    return c;
  }
  /// `text` (with a newline after it unless it ends in one).
  void say(std::ostream& out, const std::string& text) {
    std::lock_guard<std::mutex> lock(m_);
    clear();
    out << text;
    if (text.empty() || text.back() != '\n') out << '\n';
    if (!bar_.empty()) out.flush();
    draw();
  }
  /// The bar drawn at the bottom of the terminal ("" removes it).
  void bar(const std::string& text) {
    std::lock_guard<std::mutex> lock(m_);
    clear();
    bar_ = text;
    draw();
  }

 private:
  void clear() {
    if (!bar_.empty()) std::cerr << '\r' << std::string(bar_.size(), ' ') << '\r';
  }
  void draw() {
    if (!bar_.empty()) std::cerr << bar_ << std::flush;
  }
  std::mutex m_;
  std::string bar_;
};

inline void say_warning(const std::string& w) { console::get().say(std::cerr, "msprof: warning: " + w); }
inline void say_error(const std::string& e) { console::get().say(std::cerr, "msprof: error: " + e); }
inline void say_out(const std::string& line) { console::get().say(std::cout, line); }

/// A command line msprof cannot run: the one line that says why (the whole
/// usage only when there is no command to explain).
inline int usage_error(const std::string& msg) {
  std::cerr << "msprof: " << msg << "\n(msprof --help lists the commands and options)\n";
  return 2;
}

inline int fail(const std::string& msg) {
  say_error(msg);
  return 1;
}

}  // namespace msprof_cli

#endif  // MSPROF_CLI_CONSOLE_HPP
