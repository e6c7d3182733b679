// Running Graphviz.
#include "tools/rwcheck/graphviz.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

extern char** environ;

namespace rw::check {

namespace {

/// A temporary file, removed when this goes.
class TempFile {
 public:
  explicit TempFile(std::string_view suffix) {
    path_ = (std::filesystem::temp_directory_path() / "rwcheck-XXXXXX").string();
    path_ += suffix;
    const int fd = mkstemps(path_.data(), static_cast<int>(suffix.size()));
    if (fd < 0) {
      path_.clear();
      return;
    }
    close(fd);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::string read() const {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::string path_;
};

}  // namespace

std::optional<std::string> find_program(std::string_view program) {
  if (program.empty()) return std::nullopt;
  const auto runnable = [](const std::string& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string_view::npos) {
    const std::string p(program);
    return runnable(p) ? std::optional<std::string>(p) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const std::string candidate = fmt::format("{}/{}", dir.empty() ? "." : dir, program);
    if (runnable(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

SvgResult render_svg(const std::string& dot_program, const std::string& dot_text) {
  TempFile in(".dot"), out(".svg"), errors(".txt");
  if (!in.ok() || !out.ok() || !errors.ok())
    return {std::nullopt, fmt::format("cannot make a temporary file: {}", std::strerror(errno))};
  {
    std::ofstream f(in.path(), std::ios::binary);
    if (!(f << dot_text) || !f.flush())
      return {std::nullopt, fmt::format("cannot write `{}`", in.path())};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors.path().c_str(),
                                   O_WRONLY | O_TRUNC, 0);
  std::string tsvg = "-Tsvg", o = "-o" + out.path(), input = in.path(), program = dot_program;
  std::vector<char*> argv = {program.data(), tsvg.data(), o.data(), input.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    return {std::nullopt, fmt::format("cannot run `{}`: {}", dot_program, std::strerror(spawned))};
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message = errors.read();
    message = message.substr(0, message.find('\n'));
    return {std::nullopt,
            fmt::format("`{} -Tsvg` failed ({}){}", dot_program,
                        WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                          : std::string("killed by a signal"),
                        message.empty() ? "" : ": " + message)};
  }
  std::string svg = out.read();
  const std::size_t start = svg.find("<svg");
  if (start == std::string::npos)
    return {std::nullopt, fmt::format("`{} -Tsvg` wrote no <svg> element", dot_program)};
  return {svg.substr(start), ""};
}

}  // namespace rw::check
