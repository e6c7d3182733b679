// A fresh temporary directory, removed with everything in it when the
// object goes: the compile directory of native-code tests (never the user's
// cache).
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace rw::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag = "dir") {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("rw-test-" + tag + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter.fetch_add(1)));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace rw::test
