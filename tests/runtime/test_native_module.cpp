// Native modules: compiling, the compile directory's cache (key check,
// rebuilds, concurrent builds) and the errors of a bad compiler or directory.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>

#include "runtime/native_module.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using rw::test::TempDir;

namespace {

std::string answer_source(int value) {
  return "extern \"C\" __attribute__((visibility(\"default\"))) int rw_answer() { return " +
         std::to_string(value) + "; }\n";
}

int call_answer(const rw::NativeModule& m) {
  auto* f = reinterpret_cast<int (*)()>(m.symbol("rw_answer"));
  REQUIRE(f != nullptr);
  return f();
}

/// The files of `dir` whose names end in `suffix`.
int count_files(const fs::path& dir, const std::string& suffix) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("a module is compiled once, then loaded from the compile directory", "[native]") {
  TempDir dir("module");
  const rw::NativeBuildOptions options{.directory = dir.path()};
  const rw::NativeBuild first = rw::build_native_module(answer_source(42), options);
  INFO(first.error);
  REQUIRE(first.module);
  CHECK_FALSE(first.cached);
  CHECK(first.compile_seconds > 0);
  CHECK(call_answer(*first.module) == 42);
  CHECK(first.module->path() == dir.path() / (first.module->key() + ".so"));
  // The module carries its key.
  CHECK(static_cast<const char*>(first.module->symbol("rw_native_key")) == first.module->key());

  const rw::NativeBuild again = rw::build_native_module(answer_source(42), options);
  REQUIRE(again.module);
  CHECK(again.cached);
  CHECK(again.module->key() == first.module->key());
  CHECK(count_files(dir.path(), ".so") == 1);
  // The source is kept beside the shared object, for reading.
  CHECK(fs::exists(dir.path() / (first.module->key() + ".cpp")));

  // Another source, or other flags, is another key.
  CHECK(rw::native_cache_key(answer_source(43), options) != first.module->key());
  rw::NativeBuildOptions flagged = options;
  flagged.flags = {"-DRW_SOMETHING=1"};
  CHECK(rw::native_cache_key(answer_source(42), flagged) != first.module->key());
  CHECK(rw::native_cache_key(answer_source(42), options) == first.module->key());
}

TEST_CASE("a truncated cache entry is rebuilt", "[native]") {
  TempDir dir("truncated");
  const rw::NativeBuildOptions options{.directory = dir.path()};
  std::string key;
  {
    const rw::NativeBuild b = rw::build_native_module(answer_source(7), options);
    REQUIRE(b.module);
    key = b.module->key();
  }  // unloaded here
  const fs::path so = dir.path() / (key + ".so");
  fs::resize_file(so, 100);
  const rw::NativeBuild b = rw::build_native_module(answer_source(7), options);
  INFO(b.error);
  REQUIRE(b.module);
  CHECK_FALSE(b.cached);
  CHECK(call_answer(*b.module) == 7);
  CHECK(fs::file_size(so) > 100);
}

TEST_CASE("a cache entry that holds another key is rebuilt", "[native]") {
  TempDir dir("wrong-key");
  const rw::NativeBuildOptions options{.directory = dir.path()};
  std::string key_a, key_b;
  {
    const rw::NativeBuild a = rw::build_native_module(answer_source(1), options);
    const rw::NativeBuild b = rw::build_native_module(answer_source(2), options);
    REQUIRE(a.module);
    REQUIRE(b.module);
    key_a = a.module->key();
    key_b = b.module->key();
  }
  // A's file now holds B's module: it loads, but says it is B.
  fs::copy_file(dir.path() / (key_b + ".so"), dir.path() / (key_a + ".so"),
                fs::copy_options::overwrite_existing);
  const rw::NativeBuild a = rw::build_native_module(answer_source(1), options);
  INFO(a.error);
  REQUIRE(a.module);
  CHECK_FALSE(a.cached);
  CHECK(call_answer(*a.module) == 1);
  CHECK(a.module->key() == key_a);
}

TEST_CASE("two threads building one key both succeed, with one cache file", "[native]") {
  TempDir dir("threads");
  const rw::NativeBuildOptions options{.directory = dir.path()};
  rw::NativeBuild results[2];
  std::thread t([&] { results[0] = rw::build_native_module(answer_source(5), options); });
  results[1] = rw::build_native_module(answer_source(5), options);
  t.join();
  for (const rw::NativeBuild& r : results) {
    INFO(r.error);
    REQUIRE(r.module);
    CHECK(call_answer(*r.module) == 5);
  }
  // One built it; the other waited on the lock and loaded it.
  CHECK(results[0].cached != results[1].cached);
  CHECK(count_files(dir.path(), ".so") == 1);
  CHECK(count_files(dir.path(), ".cpp") == 1);
}

TEST_CASE("two processes building one key both succeed, with one cache file", "[native]") {
  TempDir dir("processes");
  const rw::NativeBuildOptions options{.directory = dir.path()};
  const std::string source = answer_source(6);
  // Known before forking, so the child does not start the compiler's
  // identity check while another thread of the parent might hold its lock.
  REQUIRE_FALSE(rw::native_cache_key(source, options).empty());
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const rw::NativeBuild b = rw::build_native_module(source, options);
    auto* f = b.module ? reinterpret_cast<int (*)()>(b.module->symbol("rw_answer")) : nullptr;
    ::_exit(f && f() == 6 ? 0 : 1);
  }
  const rw::NativeBuild b = rw::build_native_module(source, options);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  INFO(b.error);
  REQUIRE(b.module);
  CHECK(call_answer(*b.module) == 6);
  CHECK(count_files(dir.path(), ".so") == 1);
}

TEST_CASE("a compiler that cannot run is named, and reported as new only once", "[native]") {
  TempDir dir("no-compiler");
  const rw::NativeBuildOptions options{.compiler = "/nonexistent/rw-module-test-c++",
                                       .directory = dir.path()};
  const rw::NativeBuild first = rw::build_native_module(answer_source(1), options);
  CHECK_FALSE(first.module);
  CHECK_THAT(first.error, Catch::Contains("`/nonexistent/rw-module-test-c++` cannot run"));
  CHECK_FALSE(first.repeated);
  const rw::NativeBuild second = rw::build_native_module(answer_source(2), options);
  CHECK_FALSE(second.module);
  CHECK(second.repeated);
  CHECK(rw::native_cache_key(answer_source(1), options).empty());
}

TEST_CASE("a compile error gives the compiler's message, and nothing is cached", "[native]") {
  TempDir dir("compile-error");
  const rw::NativeBuild b =
      rw::build_native_module("int broken( { return; }\n", {.directory = dir.path()});
  CHECK_FALSE(b.module);
  CHECK_THAT(b.error, Catch::Contains("failed (status"));
  CHECK_THAT(b.error, Catch::Contains("error"));
  CHECK(count_files(dir.path(), ".so") == 0);
  CHECK(count_files(dir.path(), ".failed.cpp") == 1);
}

TEST_CASE("a compile directory that cannot be created is named", "[native]") {
  TempDir dir("bad-dir");
  const fs::path file = dir.path() / "a-file";
  std::ofstream(file) << "x";
  const rw::NativeBuild b = rw::build_native_module(answer_source(1), {.directory = file / "sub"});
  CHECK_FALSE(b.module);
  CHECK_THAT(b.error, Catch::Contains("cannot create the compile directory"));
  CHECK_THAT(b.error, Catch::Contains("a-file"));
}

TEST_CASE("the default compile directory follows RW_COMPILEDIR, then XDG_CACHE_HOME", "[native]") {
  const char* old_dir = std::getenv("RW_COMPILEDIR");
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_dir = old_dir ? old_dir : "", saved_xdg = old_xdg ? old_xdg : "";
  ::setenv("RW_COMPILEDIR", "/tmp/rw-here", 1);
  CHECK(rw::default_compile_dir() == fs::path("/tmp/rw-here"));
  ::unsetenv("RW_COMPILEDIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(rw::default_compile_dir() == fs::path("/tmp/xdg/rwgraph"));
  if (old_dir) ::setenv("RW_COMPILEDIR", saved_dir.c_str(), 1);
  if (old_xdg) ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  else ::unsetenv("XDG_CACHE_HOME");
}
