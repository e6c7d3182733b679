// SourceResolver: where the files a load reads come from — the disk, or
// memory (embedded rules, tests).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dsl/parse.hpp"
#include "engine/dsl/source.hpp"

namespace rw::dsl {

/// A file a resolver found.
struct ResolvedSource {
  /// Identity for cycles and de-duplication (a canonical path).
  std::string key;
  /// What diagnostics call it.
  std::string name;
  std::string text;
};

/// Finds the root file of a load and the files it imports.
class SourceResolver {
 public:
  virtual ~SourceResolver() = default;
  /// The file `path` names, imported by `importer` (null for the root file),
  /// or nullopt with `why_not` saying where it looked or what failed.
  virtual std::optional<ResolvedSource> resolve(std::string_view path, const SourceFile* importer,
                                                std::string& why_not) const = 0;
};

/// Files on disk. The root is read as given; a relative import is looked up
/// beside the importing file, then in each search directory in order.
class FileResolver final : public SourceResolver {
 public:
  /// A resolver that looks for imports in `search_paths` after the importer's folder.
  explicit FileResolver(std::vector<std::filesystem::path> search_paths = {})
      : search_paths_(std::move(search_paths)) {}
  /// See SourceResolver::resolve.
  std::optional<ResolvedSource> resolve(std::string_view path, const SourceFile* importer,
                                        std::string& why_not) const override;

 private:
  std::vector<std::filesystem::path> search_paths_;
};

/// Files held in memory by name (`std/stabilize.rules`). A relative import is
/// looked up beside the importing file's name, then from the top.
class MemoryResolver final : public SourceResolver {
 public:
  /// Adds or replaces a file.
  void add(std::string name, std::string text);
  /// See SourceResolver::resolve.
  std::optional<ResolvedSource> resolve(std::string_view path, const SourceFile* importer,
                                        std::string& why_not) const override;

 private:
  std::map<std::string, std::string, std::less<>> files_;
};

/// Reads a whole file of at most `max_bytes` (kMaxSourceBytes, 1 GiB, by
/// default); nullopt with `why_not` set when it cannot, or when the file is
/// larger — found without reading past the limit, so `/dev/zero` or a pipe
/// that never ends is refused too.
std::optional<std::string> read_file(const std::filesystem::path& path, std::string& why_not,
                                     std::size_t max_bytes = kMaxSourceBytes);

}  // namespace rw::dsl
