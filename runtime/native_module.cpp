// Native modules: compiling with the system compiler, the compile directory's
// cache (lock file, atomic rename, key check) and dlopen.
#include "runtime/native_module.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

extern char** environ;

#ifndef RW_VERSION_STRING
#define RW_VERSION_STRING "unknown"
#endif

namespace rw {

namespace fs = std::filesystem;

namespace {

/// The fixed flags: what the generated code assumes (no FMA contraction, as
/// the runtime's own kernels; hidden symbols but the exported entry points).
constexpr const char* kFixedFlags[] = {"-O3",    "-march=native", "-fPIC",
                                       "-shared", "-std=c++20",   "-ffp-contract=off",
                                       "-fvisibility=hidden"};

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t j = s.find(' ', i);
    const std::size_t end = j == std::string_view::npos ? s.size() : j;
    if (end > i) out.emplace_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

/// FNV-1a over `s` from `seed`.
std::uint64_t fnv1a(std::string_view s, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The first `lines` lines of `text`.
std::string head(const std::string& text, int lines) {
  std::size_t pos = 0;
  for (int i = 0; i < lines && pos != std::string::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  std::string out = pos == std::string::npos ? text : text.substr(0, pos);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

struct RunResult {
  bool started = false;
  int status = -1;
  std::string output;  // stdout and stderr, or why it did not start
};

std::atomic<std::uint64_t> g_counter{0};

/// A name no other thread or process of this machine uses at the same time.
std::string unique_suffix() {
  return fmt::format("{}-{}", static_cast<long>(::getpid()), g_counter.fetch_add(1));
}

/// Runs `argv` (found on PATH), its output into `log`.
RunResult run_command(const std::vector<std::string>& argv, const fs::path& log) {
  RunResult r;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.output = std::strerror(rc);
    std::error_code ec;
    fs::remove(log, ec);
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.started = true;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = read_file(log);
  std::error_code ec;
  fs::remove(log, ec);
  // posix_spawnp reports a program it could not execute as exit status 127.
  if (r.status == 127 && r.output.empty()) {
    r.started = false;
    r.output = "not found";
  }
  return r;
}

/// What a compiler says it is, found once per command and kept.
struct CompilerIdentity {
  std::string identity;  // its --version output
  std::string error;     // why it cannot run
  bool reported = false;
};

CompilerIdentity& compiler_identity(const std::string& compiler, bool* first_report) {
  static std::mutex mutex;
  static std::map<std::string, CompilerIdentity> known;
  std::lock_guard lock(mutex);
  auto [it, fresh] = known.try_emplace(compiler);
  CompilerIdentity& id = it->second;
  if (fresh) {
    std::vector<std::string> argv = split_words(compiler);
    if (argv.empty()) {
      id.error = "the compiler command is empty";
    } else {
      argv.emplace_back("--version");
      const fs::path log = fs::temp_directory_path() / ("rw-cxx-version-" + unique_suffix());
      const RunResult r = run_command(argv, log);
      if (!r.started) id.error = fmt::format("the compiler `{}` cannot run: {}", compiler, r.output);
      else if (r.status != 0)
        id.error = fmt::format("`{} --version` exited with status {}: {}", compiler, r.status,
                               head(r.output, 3));
      else id.identity = r.output;
    }
  }
  if (first_report) {
    *first_report = !id.reported;
    if (!id.error.empty()) id.reported = true;
  }
  return id;
}

std::vector<std::string> all_flags(const NativeBuildOptions& options) {
  std::vector<std::string> flags(std::begin(kFixedFlags), std::end(kFixedFlags));
  flags.insert(flags.end(), options.flags.begin(), options.flags.end());
  return flags;
}

std::string compiler_of(const NativeBuildOptions& options) {
  return options.compiler.empty() ? native_compiler() : options.compiler;
}

std::string key_for(std::string_view source, const std::string& identity,
                    const std::vector<std::string>& flags) {
  std::string all(source);
  all += '\0';
  all += identity;
  for (const std::string& f : flags) (all += '\0') += f;
  all += '\0';
  all += RW_VERSION_STRING;
  return fmt::format("rw{:016x}{:016x}", fnv1a(all, 0xcbf29ce484222325ULL),
                     fnv1a(all, 0x84222325cbf29ce4ULL));
}

/// The module at `path` when it loads and carries `key`; null otherwise (a
/// missing, truncated or foreign file).
std::shared_ptr<const NativeModule> try_load(const fs::path& path, const std::string& key) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return nullptr;
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return nullptr;
  const auto* stored = static_cast<const char*>(::dlsym(handle, "rw_native_key"));
  if (!stored || key != stored) {
    ::dlclose(handle);
    return nullptr;
  }
  return std::make_shared<const NativeModule>(handle, key, path);
}

/// An exclusive flock on a file, released when destroyed.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_CREAT | O_RDWR, 0644)) {
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace

NativeModule::NativeModule(void* handle, std::string key, fs::path path)
    : handle_(handle), key_(std::move(key)), path_(std::move(path)) {}

NativeModule::~NativeModule() {
  if (handle_) ::dlclose(handle_);
}

void* NativeModule::symbol(const char* name) const { return ::dlsym(handle_, name); }

std::string native_compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

fs::path default_compile_dir() {
  if (const char* d = std::getenv("RW_COMPILEDIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "rwgraph";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "rwgraph";
  return fs::temp_directory_path() / "rwgraph";
}

std::string native_cache_key(std::string_view source, const NativeBuildOptions& options,
                             std::string* error) {
  const CompilerIdentity& id = compiler_identity(compiler_of(options), nullptr);
  if (!id.error.empty()) {
    if (error) *error = id.error;
    return "";
  }
  return key_for(source, id.identity, all_flags(options));
}

NativeBuild build_native_module(std::string_view source, const NativeBuildOptions& options) {
  NativeBuild b;
  const std::string compiler = compiler_of(options);
  bool first = false;
  const CompilerIdentity& id = compiler_identity(compiler, &first);
  if (!id.error.empty()) {
    b.error = id.error;
    b.repeated = !first;
    return b;
  }
  const std::vector<std::string> flags = all_flags(options);
  const std::string key = key_for(source, id.identity, flags);
  b.key = key;
  const fs::path dir = options.directory.empty() ? default_compile_dir() : options.directory;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    b.error = fmt::format("cannot create the compile directory `{}`: {}", dir.string(),
                          ec ? ec.message() : "not a directory");
    return b;
  }
  const fs::path so = dir / (key + ".so");
  if ((b.module = try_load(so, key))) {
    b.cached = true;
    return b;
  }
  const FileLock lock(dir / (key + ".lock"));
  if (!lock.ok()) {
    b.error = fmt::format("cannot write the lock file `{}` in the compile directory",
                          (dir / (key + ".lock")).string());
    return b;
  }
  // Someone else may have built it while this thread waited for the lock.
  if ((b.module = try_load(so, key))) {
    b.cached = true;
    return b;
  }
  const std::string tmp = fmt::format("{}.tmp-{}", key, unique_suffix());
  const fs::path cpp = dir / (tmp + ".cpp"), tmp_so = dir / (tmp + ".so");
  {
    std::ofstream out(cpp, std::ios::binary);
    out << source << "\nextern \"C\" __attribute__((visibility(\"default\"))) const char "
        << "rw_native_key[] = \"" << key << "\";\n";
    if (!out) {
      b.error = fmt::format("cannot write `{}` in the compile directory", cpp.string());
      fs::remove(cpp, ec);
      return b;
    }
  }
  std::vector<std::string> argv = split_words(compiler);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-o", tmp_so.string(), cpp.string()});
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = run_command(argv, dir / (tmp + ".log"));
  b.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.started || r.status != 0) {
    b.error = !r.started ? fmt::format("the compiler `{}` cannot run: {}", compiler, r.output)
                         : fmt::format("`{}` failed (status {}) on `{}`:\n{}", compiler, r.status,
                                       cpp.string(), head(r.output, 12));
    fs::remove(tmp_so, ec);
    // The source stays beside the cache for reading; under its key's name.
    fs::rename(cpp, dir / (key + ".failed.cpp"), ec);
    return b;
  }
  fs::rename(cpp, dir / (key + ".cpp"), ec);
  fs::rename(tmp_so, so, ec);
  if (ec) {
    b.error = fmt::format("cannot rename `{}` to `{}`: {}", tmp_so.string(), so.string(),
                          ec.message());
    fs::remove(tmp_so, ec);
    return b;
  }
  if (!(b.module = try_load(so, key)))
    b.error = fmt::format("`{}` was built but does not load: {}", so.string(),
                          [] {
                            const char* e = ::dlerror();
                            return std::string(e ? e : "its key does not match");
                          }());
  return b;
}

}  // namespace rw
