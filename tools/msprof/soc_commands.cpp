// SPDX-License-Identifier: MIT
// The SoC flow's commands (docs/soc.md): export / show of JOB directories, and
// `msprof collect`, which writes the acl.json, runs the program (here, or on a
// board over ssh) and brings the JOB directories back. The board's password
// reaches ssh only through the askpass helper (this program, run by ssh), which
// reads it from a socket only this user can connect to: never an argument,
// an environment variable or a file.
#include "soc_commands.hpp"

#include <msprof/convert/soc/export.hpp>
#include <msprof/convert/soc/import.hpp>
#include <msprof/convert/soc/job.hpp>
#include <msprof/convert/text.hpp>
#include <msprof/core/output_file.hpp>

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "console.hpp"

namespace fs = std::filesystem;
namespace soc = msprof::convert::soc;

namespace msprof_cli {

namespace {

constexpr const char* soc_dir_help =
    "usage (SoC JOB directories, docs/soc.md):\n"
    "  msprof import -dir <JOB dir>                         write <dir>/sqlite/*.db\n"
    "  msprof export timeline -dir <JOB dir>                write <dir>/timeline/task_time_*.json and acl_*.json\n"
    "  msprof export summary -dir <JOB dir> [--format csv|json]\n"
    "                                                       write <dir>/summary/op_summary_*, acl_statistic_*,\n"
    "                                                       op_statistic_* (default csv)\n"
    "  msprof show -dir <JOB dir>                           print AA core metric, Op statistic, Acl statistic, Frequency\n"
    "  -dir, --collection-dir <dir>   a JOB directory (data/ and info.json.0), or a directory of them\n"
    "  -h, --help                     this text\n";

constexpr const char* collect_help =
    "usage: msprof collect -m <main> [--config <ssh.ini>] [--interval N] [--acl_api on|off] [--aacpu on|off]\n"
    "                      [--switch on|off] [--aac_metrics M] [--output DIR] [--all]\n"
    "  Writes an acl.json (profiler section), runs <main> with it (its path is the first argument and\n"
    "  MSPROF_SOC_ACL_JSON), and brings the JOB directories into --output (docs/soc.md).\n"
    "  -m, --main <main>        the program to run\n"
    "  --config <ssh.ini>       run it on the board named by [ssh_config] ip/username/pwd/port (over ssh);\n"
    "                           without it, here. The file holds a password: chmod 600 it, delete it after use\n"
    "  --interval N             acl.json interval: sample every N inferences, 0 every one (default 0)\n"
    "  --acl_api on|off         acl.json acl_api (default on)\n"
    "  --aacpu on|off           acl.json aacpu (default on)\n"
    "  --switch on|off          acl.json switch (default on)\n"
    "  --aac_metrics M          acl.json aac_metrics (default ArithmeticUtilization)\n"
    "  --output DIR             where the JOB directories go (default: the current directory)\n"
    "  --all                    then import and export them (timeline and csv summary)\n"
    "  -h, --help               this text\n";

// ---------------------------------------------------------------- JOB directories

/// What is wrong with `dir` as a JOB directory ("" when it is one).
std::string job_dir_problem(const std::string& dir) {
  std::error_code ec;
  const auto data = fs::symlink_status(fs::path(dir) / "data", ec);
  if (!fs::exists(data)) return "no data/ directory";
  if (!fs::is_directory(data)) return "data is not a directory";
  bool info = false;  // info.json.<device>
  for (const auto& e : fs::directory_iterator(dir, ec))
    info = info || (e.path().filename().string().rfind("info.json.", 0) == 0 && e.is_regular_file(ec));
  if (!info) return "no info.json.<device> (info.json.0)";
  return soc::is_job_dir(dir) ? "" : "not readable as a JOB directory";
}

bool job_like_name(const fs::path& p) { return p.filename().string().rfind("JOB", 0) == 0; }

/// The JOB directories `dir` names: itself, or its JOB* subdirectories. `errors`
/// gets one line for each that is damaged. Not a SoC directory: both empty.
std::vector<std::string> find_job_dirs(const std::string& dir, std::vector<std::string>& errors) {
  std::error_code ec;
  fs::path p(dir);
  while (p.has_filename() == false && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  if (soc::is_job_dir(dir)) return {dir};
  if (fs::is_directory(dir, ec) && job_like_name(p)) {
    errors.push_back(dir + ": a damaged JOB directory: " + job_dir_problem(dir) + " (a JOB directory holds data/ and info.json.<device>)");
    return {};
  }
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!job_like_name(e.path()) || e.is_symlink(ec) || !e.is_directory(ec)) continue;
    const std::string d = e.path().string();
    const std::string problem = job_dir_problem(d);
    if (problem.empty())
      out.push_back(d);
    else
      errors.push_back(d + ": a damaged JOB directory: " + problem);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The JOB directory, read (and its warnings said).
msprof::result<soc::job> read_job(const std::string& dir) {
  auto j = soc::load_job(dir);
  if (j)
    for (const auto& w : j->warnings) say_warning(w);
  return j;
}

int say_export(const msprof::result<soc::export_result>& r) {
  if (!r) return fail(r.err().what());
  for (const auto& w : r->warnings) say_warning(w);
  for (const auto& f : r->files) say_out(f);
  return 0;
}

enum class soc_what { timeline, summary, show, all };

/// One JOB directory: export or show it (all: timeline and summary), importing
/// it first (sqlite/) when it was not imported yet, or always with `import`.
/// The job's warnings are said once. show prints its tables even when the JOB
/// directory cannot be written (what it would write is then a warning).
int run_on_job(const std::string& dir, soc_what w, const std::string& format, bool import = false) {
  auto j = read_job(dir);
  if (!j) return fail(j.err().what());
  std::error_code ec;
  const bool show = w == soc_what::show;
  if (import || !fs::is_directory(fs::path(dir) / "sqlite", ec)) {
    auto db = soc::write_job_db(*j);
    if (!db && !show) return fail(db.err().what());
    if (!db) {
      say_warning(db.err().what());
    } else {
      for (std::size_t k = j->warnings.size(); k < db->warnings.size(); ++k) say_warning(db->warnings[k]);
      for (const auto& f : db->files) say_out(f);
    }
  }
  switch (w) {
    case soc_what::timeline: return say_export(soc::export_timeline(*j));
    case soc_what::summary: return say_export(soc::export_summary(*j, format));
    case soc_what::all: {
      const int a = say_export(soc::export_timeline(*j));
      return say_export(soc::export_summary(*j, format)) != 0 ? 1 : a;
    }
    case soc_what::show: {
      say_out(soc::show_text(*j, isatty(STDOUT_FILENO) != 0));
      // show leaves timeline/ and log/ behind, as the document says
      auto tl = soc::export_timeline(*j);
      if (!tl) say_warning(tl.err().what());
      auto d = msprof::outfile::dir::open(dir, true);
      auto log = d ? d->mkdir("log") : msprof::result<msprof::outfile::dir>(d.err());
      auto written = log ? msprof::outfile::write_atomic(*log, "show.log", soc::show_text(*j, false))
                         : msprof::result<void>(log.err());
      if (!written) say_warning(written.err().what());
      return 0;
    }
  }
  return 0;
}

/// The -dir of the command line from `from` on ("" when none).
std::string dir_arg(const arg_parser& p, std::size_t from) {
  arg_parser q = p;
  q.i = from;
  std::string dir;
  while (!q.done()) {
    bool err = false;
    if (auto v = q.take_dir(err))
      dir = *v;
    else
      ++q.i;
  }
  return dir;
}

/// import of a directory of JOB directories, or of a damaged one (a JOB directory
/// itself is main's import branch); nullopt otherwise.
std::optional<int> import_command(const arg_parser& p) {
  const std::string dir = dir_arg(p, 1);
  if (dir.empty()) return std::nullopt;
  std::vector<std::string> errors;
  const auto dirs = find_job_dirs(dir, errors);
  if (dirs.empty() && errors.empty()) return std::nullopt;
  for (const auto& a : p.args)
    if (a == "-h" || a == "--help") {
      std::cout << soc_dir_help;
      return 0;
    }
  if (soc::is_job_dir(dir)) return std::nullopt;  // main's import branch
  int rc = 0;
  for (const auto& e : errors) rc = fail(e);
  for (const auto& d : dirs) {
    auto r = soc::import_job(d);
    if (!r) {
      rc = fail(r.err().what());
      continue;
    }
    for (const auto& w : r->warnings) say_warning(w);
    for (const auto& f : r->files) say_out(f);
  }
  return rc;
}

/// export timeline|summary and show of JOB directories; nullopt when -dir names none.
std::optional<int> job_command(const arg_parser& p) {
  const bool show = p.args[0] == "show";
  std::size_t from = 1;
  soc_what w = soc_what::show;
  if (!show) {
    if (p.args.size() < 2) return std::nullopt;
    from = 2;
  }
  const std::string dir = dir_arg(p, from);
  if (dir.empty()) return std::nullopt;
  std::vector<std::string> errors;
  const auto dirs = find_job_dirs(dir, errors);
  if (dirs.empty() && errors.empty()) return std::nullopt;  // a PROF_ directory or parent
  if (!show) {
    if (p.args[1] == "timeline")
      w = soc_what::timeline;
    else if (p.args[1] == "summary")
      w = soc_what::summary;
    else
      return usage_error("export " + p.args[1] + ": a JOB directory exports timeline or summary (msprof import -dir " +
                         dir + " writes its databases)");
  }
  // From here on the command is the SoC flow's: its own options only.
  arg_parser q = p;
  q.i = from;
  std::string format = "csv";
  progress_flags pf;  // accepted as on every reading command; the SoC outputs are small
  while (!q.done()) {
    const std::string& a = q.args[q.i];
    if (a == "-h" || a == "--help") {
      std::cout << soc_dir_help;
      return 0;
    }
    bool err = false;
    if (q.take_dir(err) || pf.take(q, err)) {
    } else if (auto f = q.take("format", true, err); f && w == soc_what::summary) {
      if (*f != "csv" && *f != "json") return usage_error("--format must be csv or json, got '" + *f + "'");
      format = *f;
    } else if (!f) {
      return usage_error("unknown option '" + a + "' for a JOB directory (" +
                         (show ? std::string("show") : "export " + p.args[1]) + " -h lists them)");
    } else {
      return usage_error("--format is an option of export summary");
    }
    if (err) return usage_error("option '" + q.args[q.i - 1] + "' needs a value");
  }
  int rc = 0;
  for (const auto& e : errors) rc = fail(e);
  for (const auto& d : dirs)
    if (run_on_job(d, w, format) != 0) rc = 1;
  return rc;
}

// ---------------------------------------------------------------- processes

/// Runs argv (searched in PATH), with `env` added to ours, in `cwd` when given;
/// its stdout into `out` when given. The exit status (128 + signal when killed).
int run(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
        const std::string& cwd = "", std::string* out = nullptr, bool null_stdin = false) {
  // Everything the child needs is made before fork: a collecting msprof has a
  // thread (the askpass server), so the child only calls what is safe after fork.
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto same = [&kv](const std::pair<std::string, std::string>& o) { return kv.rfind(o.first + "=", 0) == 0; };
    if (std::none_of(env.begin(), env.end(), same)) env_text.push_back(kv);
  }
  for (const auto& kv : env) env_text.push_back(kv.first + "=" + kv.second);
  std::vector<char*> envp, args;
  for (auto& e : env_text) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string cannot_run = "msprof: error: cannot run " + argv[0] + "\n";
  const std::string cannot_cd = "msprof: error: cannot enter " + cwd + "\n";
  int fds[2] = {-1, -1};
  if (out && ::pipe2(fds, O_CLOEXEC) != 0) return 127;
  const pid_t child = ::fork();
  if (child < 0) return 127;
  if (child == 0) {
    if (out) ::dup2(fds[1], STDOUT_FILENO);
    if (null_stdin) {
      const int n = ::open("/dev/null", O_RDONLY);
      if (n >= 0) ::dup2(n, STDIN_FILENO);
    }
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      (void)!::write(STDERR_FILENO, cannot_cd.data(), cannot_cd.size());
      ::_exit(127);
    }
    ::execvpe(args[0], args.data(), envp.data());
    (void)!::write(STDERR_FILENO, cannot_run.data(), cannot_run.size());
    ::_exit(127);
  }
  if (out) {
    ::close(fds[1]);
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      out->append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/// `w` quoted for the board's /bin/sh.
std::string sh_quote(const std::string& w) {
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// ---------------------------------------------------------------- ssh

struct ssh_config {
  std::string ip, username, pwd;
  unsigned port = 22;
};

/// The [ssh_config] section of `path`; refuses a file others may read or write.
msprof::result<ssh_config> read_ini(const std::string& path) {
  using msprof::errc;
  using msprof::make_error;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_error(errc::not_found, path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return make_error(errc::invalid_argument, path + ": not a regular file");
  if ((st.st_mode & 0066) != 0)
    return make_error(errc::invalid_argument,
                      path + ": holds a password and other users may read or change it (mode " +
                          std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                          std::to_string(st.st_mode & 7) + "): chmod 600 " + path);
  std::ifstream in(path);
  if (!in) return make_error(errc::io, path + ": cannot read");
  ssh_config c;
  std::string section, line, port = "22";
  bool have_ip = false, have_user = false, have_pwd = false;
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']') return make_error(errc::parse, path + ":" + std::to_string(n) + ": a section header must end in ']'");
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) return make_error(errc::parse, path + ":" + std::to_string(n) + ": expected key = value");
    if (section != "ssh_config") continue;
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "ip") c.ip = value, have_ip = true;
    else if (key == "username") c.username = value, have_user = true;
    else if (key == "pwd") c.pwd = value, have_pwd = true;
    else if (key == "port") port = value;
  }
  if (!have_ip || c.ip.empty()) return make_error(errc::invalid_argument, path + ": [ssh_config] has no ip");
  if (!have_user || c.username.empty()) return make_error(errc::invalid_argument, path + ": [ssh_config] has no username");
  if (!have_pwd) return make_error(errc::invalid_argument, path + ": [ssh_config] has no pwd");
  const auto p = parse_u32(port);
  if (!p || *p == 0 || *p > 65535)
    return make_error(errc::invalid_argument, path + ": [ssh_config] port must be a number from 1 to 65535, got '" + port + "'");
  if (c.ip.find_first_of(" \t'\"`$;&|<>") != std::string::npos || c.ip[0] == '-' ||
      c.username.find_first_of(" \t'\"`$;&|<>@") != std::string::npos || c.username[0] == '-')
    return make_error(errc::invalid_argument, path + ": [ssh_config] ip or username holds characters ssh does not take");
  c.port = *p;
  return c;
}

/// Hands the password to the askpass helper ssh runs: a Unix socket in a fresh
/// 0700 directory, answering connections of this user only, while it lives.
class askpass_server {
 public:
  explicit askpass_server(std::string password) : pwd_(std::move(password)) {}
  ~askpass_server() {
    stop_ = true;
    if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
    if (thread_.joinable()) thread_.join();
    for (int fd : {listen_, wake_[0], wake_[1]})
      if (fd >= 0) ::close(fd);
    if (!dir_.empty()) {
      ::unlink(socket_path().c_str());
      ::rmdir(dir_.c_str());
    }
    std::fill(pwd_.begin(), pwd_.end(), '\0');
  }
  askpass_server(const askpass_server&) = delete;
  askpass_server& operator=(const askpass_server&) = delete;

  msprof::result<void> start() {
    std::error_code ec;
    std::string t = (fs::temp_directory_path(ec).string().empty() ? "/tmp" : fs::temp_directory_path(ec).string()) +
                    "/msprof_askpass_XXXXXX";
    if (!::mkdtemp(&t[0])) return msprof::make_error(msprof::errc::io, t + ": " + std::strerror(errno));
    dir_ = t;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string path = socket_path();
    if (path.size() >= sizeof addr.sun_path) return msprof::make_error(msprof::errc::io, path + ": path too long for a socket");
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    listen_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_ < 0 || ::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_, 4) != 0 ||
        ::pipe2(wake_, O_CLOEXEC) != 0)
      return msprof::make_error(msprof::errc::io, path + ": " + std::strerror(errno));
    thread_ = std::thread([this] { serve(); });
    return {};
  }
  std::string socket_path() const { return dir_ + "/s"; }

 private:
  void serve() {
    while (!stop_) {
      pollfd fds[2] = {{listen_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents) return;
      const int c = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ucred cred{};
      socklen_t len = sizeof cred;
      if (::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == ::getuid())
        (void)!::write(c, pwd_.data(), pwd_.size());
      ::close(c);
    }
  }
  std::string pwd_, dir_;
  int listen_ = -1, wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// Run by ssh as SSH_ASKPASS: prints the password the collecting msprof serves.
int askpass_helper(const char* socket) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (std::strlen(socket) >= sizeof addr.sun_path) return 1;
  std::memcpy(addr.sun_path, socket, std::strlen(socket) + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return 1;
  std::string pwd;
  char buf[256];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) pwd.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  std::cout << pwd << '\n' << std::flush;
  std::fill(pwd.begin(), pwd.end(), '\0');
  return 0;
}

std::string self_exe() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("msprof") : p.string();
}

/// ssh and scp with the board's settings and the askpass helper.
struct board {
  ssh_config cfg;
  std::string askpass_socket;

  std::vector<std::string> options(bool scp) const {
    std::vector<std::string> o = {scp ? "-P" : "-p", std::to_string(cfg.port)};
    for (const char* opt : {"StrictHostKeyChecking=accept-new", "PreferredAuthentications=password,keyboard-interactive",
                            "PubkeyAuthentication=no", "NumberOfPasswordPrompts=1", "ConnectTimeout=20"}) {
      o.push_back("-o");
      o.push_back(opt);
    }
    if (const char* kh = std::getenv("MSPROF_SSH_KNOWN_HOSTS"); kh && *kh) {
      o.push_back("-o");
      o.push_back(std::string("UserKnownHostsFile=") + kh);
    }
    return o;
  }
  std::vector<std::pair<std::string, std::string>> env() const {
    return {{"SSH_ASKPASS", self_exe()}, {"SSH_ASKPASS_REQUIRE", "force"}, {"MSPROF_ASKPASS_SOCKET", askpass_socket}};
  }
  std::string host() const { return cfg.username + "@" + cfg.ip; }
  std::string remote(const std::string& path) const {
    const bool v6 = cfg.ip.find(':') != std::string::npos;
    return cfg.username + "@" + (v6 ? "[" + cfg.ip + "]" : cfg.ip) + ":" + path;
  }
  int ssh(const std::string& command, std::string* out = nullptr) const {
    std::vector<std::string> a = {"ssh", "-T"};
    for (auto& o : options(false)) a.push_back(std::move(o));
    a.push_back(host());
    a.push_back(command);
    return run(a, env(), "", out, true);
  }
  int scp(std::vector<std::string> from, const std::string& to, bool recursive) const {
    std::vector<std::string> a = {"scp", "-q"};
    if (recursive) a.push_back("-r");
    for (auto& o : options(true)) a.push_back(std::move(o));
    for (auto& f : from) a.push_back(std::move(f));
    a.push_back(to);
    return run(a, env(), "", nullptr, true);
  }
};

// ---------------------------------------------------------------- collect

struct collect_options {
  std::string main, config, output, interval = "0", acl_api = "on", aacpu = "on", sw = "on",
                                    aac_metrics = "ArithmeticUtilization";
  bool all = false;
};

std::string acl_json_text(const collect_options& o, const std::string& output) {
  std::string s = "{\"profiler\":{\"switch\":";
  msprof::convert::append_json_string(s, o.sw);
  s += ",\"output\":";
  msprof::convert::append_json_string(s, output);
  s += ",\"aacpu\":";
  msprof::convert::append_json_string(s, o.aacpu);
  s += ",\"acl_api\":";
  msprof::convert::append_json_string(s, o.acl_api);
  s += ",\"interval\":";
  msprof::convert::append_json_string(s, o.interval);
  s += ",\"aac_metrics\":";
  msprof::convert::append_json_string(s, o.aac_metrics);
  return s + "}}\n";
}

/// Moves the JOB directories in `from` into `to`; their new paths.
msprof::result<std::vector<std::string>> move_jobs(const fs::path& from, const fs::path& to) {
  std::vector<std::string> moved;
  std::error_code ec;
  std::vector<fs::path> jobs;
  for (const auto& e : fs::directory_iterator(from, ec))
    if (job_like_name(e.path()) && !e.is_symlink(ec) && e.is_directory(ec)) jobs.push_back(e.path());
  std::sort(jobs.begin(), jobs.end());
  for (const auto& j : jobs) {
    const fs::path dest = to / j.filename();
    if (fs::exists(fs::symlink_status(dest, ec)))
      return msprof::make_error(msprof::errc::io, dest.string() + ": already exists (the run's JOB directory stays in " + j.string() + ")");
    fs::rename(j, dest, ec);
    if (ec) return msprof::make_error(msprof::errc::io, dest.string() + ": cannot move " + j.string() + " there: " + ec.message());
    moved.push_back(dest.string());
  }
  return moved;
}

int cmd_collect(const arg_parser& p) {
  collect_options o;
  arg_parser q = p;
  q.i = 1;
  while (!q.done()) {
    const std::string a = q.args[q.i];
    if (a == "-h" || a == "--help") {
      std::cout << collect_help;
      return 0;
    }
    bool err = false;
    auto on_off = [&](const std::string& flag, const std::string& v, std::string& into) {
      if (v != "on" && v != "off") return usage_error("--" + flag + " must be on or off, got '" + v + "'");
      into = v;
      return 0;
    };
    int bad = 0;
    if (auto m = q.take("m", true, err); m || (m = q.take("main", true, err))) {
      o.main = *m;
    } else if (auto c = q.take("config", true, err)) {
      o.config = *c;
    } else if (auto iv = q.take("interval", true, err)) {
      if (!err && (!parse_u32(*iv) || *parse_u32(*iv) > 100000000))
        return usage_error("--interval must be a number of inferences from 0 (every one) to 100000000, got '" + *iv + "'");
      o.interval = *iv;
    } else if (auto v1 = q.take("acl_api", true, err)) {
      bad = err ? 0 : on_off("acl_api", *v1, o.acl_api);
    } else if (auto v2 = q.take("aacpu", true, err)) {
      bad = err ? 0 : on_off("aacpu", *v2, o.aacpu);
    } else if (auto v3 = q.take("switch", true, err)) {
      bad = err ? 0 : on_off("switch", *v3, o.sw);
    } else if (auto v4 = q.take("aac_metrics", true, err)) {
      o.aac_metrics = *v4;
    } else if (auto v5 = q.take("output", true, err)) {
      o.output = *v5;
    } else if (auto v6 = q.take("all", false, err)) {
      o.all = *v6 != "off";
    } else {
      return usage_error("unknown option '" + a + "' (msprof collect -h lists them)");
    }
    if (bad) return bad;
    if (err) return usage_error("option '" + a + "' needs a value");
  }
  if (o.main.empty()) return usage_error("collect needs -m <main>, the program to run");
  std::error_code ec;
  if (!fs::is_regular_file(o.main, ec)) return fail(o.main + ": no such program");
  if (o.aac_metrics != "ArithmeticUtilization")
    say_warning("--aac_metrics " + o.aac_metrics + ": only ArithmeticUtilization collects AA Core data");
  if (o.output.empty()) o.output = ".";
  const std::string output = fs::absolute(o.output, ec).lexically_normal().string();
  auto out_dir = msprof::outfile::dir::make(output);
  if (!out_dir) return fail(out_dir.err().what());
  // The run's own directory under --output: the acl.json and the profiling/ it names (locally),
  // or what scp brings back from the board.
  const std::string run_name = "msprof_collect_" + std::to_string(::getpid()) + "_" + msprof::outfile::detail::random_hex().substr(0, 8);
  auto run_dir = out_dir->mkdir(run_name, true);
  if (!run_dir) return fail(run_dir.err().what());
  const fs::path run_path = run_dir->path();
  auto cleanup = [&] { fs::remove_all(run_path, ec); };

  int app_rc = 0;
  const std::string program = fs::path(o.main).filename().string();
  if (o.config.empty()) {
    auto prof = run_dir->mkdir("profiling");
    if (!prof) return cleanup(), fail(prof.err().what());
    const std::string acl = (run_path / "acl.json").string();
    if (auto w = msprof::outfile::write_atomic(*run_dir, "acl.json", acl_json_text(o, (run_path / "profiling").string())); !w)
      return cleanup(), fail(w.err().what());
    const std::string exe = fs::absolute(o.main, ec).string();
    app_rc = run({exe, acl}, {{"MSPROF_SOC_ACL_JSON", acl}}, run_path.string());
  } else {
    auto cfg = read_ini(o.config);
    if (!cfg) return cleanup(), fail(cfg.err().what());
    console::get().say(std::cerr, "msprof: " + o.config +
                                      " holds the board's password in plain text: delete it after use, or keep it "
                                      "readable by you only (docs/soc.md)");
    askpass_server server(cfg->pwd);
    cfg->pwd.assign(cfg->pwd.size(), '\0');
    if (auto s = server.start(); !s) return cleanup(), fail(s.err().what());
    board b{*cfg, server.socket_path()};
    std::string remote;
    if (int rc = b.ssh("mktemp -d /tmp/msprof_collect_XXXXXX", &remote); rc != 0)
      return cleanup(), fail("ssh " + b.host() + " port " + std::to_string(cfg->port) + ": cannot log in or create a directory (ssh exit status " + std::to_string(rc) + ")");
    remote.erase(remote.find_last_not_of(" \r\n\t") + 1);
    if (remote.empty() || remote.find_first_of("'\n") != std::string::npos)
      return cleanup(), fail("ssh " + b.host() + ": mktemp gave no directory");
    auto remove_remote = [&] { (void)b.ssh("rm -rf " + sh_quote(remote)); };
    if (auto w = msprof::outfile::write_atomic(*run_dir, "acl.json", acl_json_text(o, remote + "/profiling")); !w)
      return remove_remote(), cleanup(), fail(w.err().what());
    if (int rc = b.scp({o.main, (run_path / "acl.json").string()}, b.remote(remote + "/"), false); rc != 0)
      return remove_remote(), cleanup(), fail("scp to " + b.host() + ":" + remote + " failed (exit status " + std::to_string(rc) + ")");
    const std::string acl = remote + "/acl.json";
    app_rc = b.ssh("cd " + sh_quote(remote) + " && mkdir -p profiling && chmod +x " + sh_quote(program) +
                   " && MSPROF_SOC_ACL_JSON=" + sh_quote(acl) + " ./" + sh_quote(program) + " " + sh_quote(acl));
    fs::remove(run_path / "acl.json", ec);
    const int got = b.scp({b.remote(remote + "/profiling")}, run_path.string(), true);
    remove_remote();
    if (got != 0) return cleanup(), fail("scp from " + b.host() + ":" + remote + "/profiling failed (exit status " + std::to_string(got) + ")");
  }
  auto moved = move_jobs(run_path / "profiling", output);
  if (!moved) return fail(moved.err().what());
  cleanup();
  if (moved->empty()) {
    if (app_rc != 0) return fail(o.main + " exited with status " + std::to_string(app_rc) + " and left no JOB directory");
    return fail(o.main + ": the run left no JOB directory (profiling switch off, or no inference executed?)");
  }
  int rc = 0;
  for (const auto& d : *moved) {
    say_out(d);
    if (!o.all) continue;
    if (run_on_job(d, soc_what::all, "csv", true) != 0) rc = 1;
  }
  if (app_rc != 0) return fail(o.main + " exited with status " + std::to_string(app_rc) + " (its JOB data was brought back)");
  return rc;
}

}  // namespace

std::optional<int> soc_command(const arg_parser& p) {
  if (p.args.empty()) return std::nullopt;
  if (const char* s = std::getenv("MSPROF_ASKPASS_SOCKET"); s && *s && p.args.size() == 1 && p.args[0] != "collect")
    return askpass_helper(s);  // ssh asks: the argument is its prompt
  if (p.args[0] == "collect") return cmd_collect(p);
  if (p.args[0] == "export" || p.args[0] == "show") return job_command(p);
  if (p.args[0] == "import") return import_command(p);
  return std::nullopt;
}

}  // namespace msprof_cli
