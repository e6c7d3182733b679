// Native modules: C++ source compiled by the system compiler into a shared
// object, cached in a compile directory by a hash of what went into it, and
// loaded with dlopen.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rw {

/// How a module is compiled and where it is kept.
struct NativeBuildOptions {
  /// The compiler command, split on spaces ("c++", "ccache g++"). Empty:
  /// native_compiler().
  std::string compiler;
  /// The compile directory. Empty: default_compile_dir().
  std::filesystem::path directory;
  /// Flags after the fixed ones (`-O3 -march=native -fPIC -shared
  /// -std=c++20 -ffp-contract=off`), such as an Op's compile arguments.
  std::vector<std::string> flags;
};

/// A loaded shared object. dlclose'd when the last handle goes.
class NativeModule {
 public:
  NativeModule(void* handle, std::string key, std::filesystem::path path);
  ~NativeModule();
  NativeModule(const NativeModule&) = delete;
  NativeModule& operator=(const NativeModule&) = delete;

  /// The address of the exported symbol `name`, or null.
  void* symbol(const char* name) const;
  /// The cache key the module was built for (and carries as `rw_native_key`).
  const std::string& key() const { return key_; }
  /// The shared object's path in the compile directory.
  const std::filesystem::path& path() const { return path_; }

 private:
  void* handle_;
  std::string key_;
  std::filesystem::path path_;
};

/// What build_native_module did.
struct NativeBuild {
  /// The loaded module; null when the build failed.
  std::shared_ptr<const NativeModule> module;
  /// Why it failed ("" on success): names the compiler, the directory or the
  /// file at fault, with the compiler's first lines of output.
  std::string error;
  /// The failure is one already reported for this compiler (it cannot run at
  /// all), so a caller that warns once need not warn again.
  bool repeated = false;
  /// Loaded from the cache without compiling.
  bool cached = false;
  /// The cache key ("" when the compiler cannot run).
  std::string key;
  /// Seconds spent compiling (0 when cached).
  double compile_seconds = 0;
};

/// Compiles `source` (unless the compile directory holds it already) and
/// loads it. The key is a hash of the source, the compiler's identity (its
/// `--version` output), the flags and the library's version; the shared
/// object is `<dir>/<key>.so` and exports `rw_native_key` holding the key,
/// which is checked after loading: a truncated file or one of another key is
/// rebuilt. Safe when several threads or processes build one key at once:
/// the build holds `<key>.lock` (flock) and renames a temporary file into
/// place. Never throws for a bad compiler or directory: `error` says why.
NativeBuild build_native_module(std::string_view source, const NativeBuildOptions& options = {});

/// The cache key build_native_module uses for `source` under `options`; ""
/// when the compiler cannot run (then `error`, when given, says why).
std::string native_cache_key(std::string_view source, const NativeBuildOptions& options,
                             std::string* error = nullptr);

/// The default compile directory: $RW_COMPILEDIR, else
/// $XDG_CACHE_HOME/rwgraph, else $HOME/.cache/rwgraph.
std::filesystem::path default_compile_dir();
/// The default compiler: $CXX, else "c++".
std::string native_compiler();

}  // namespace rw
