// FileResolver and MemoryResolver.
#include "engine/dsl/resolver.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace rw::dsl {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const fs::path& path, std::string& why_not) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    why_not = fmt::format("`{}` is a directory", path.string());
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why_not = fmt::format("cannot open `{}`: {}", path.string(), std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    why_not = fmt::format("cannot read `{}`", path.string());
    return std::nullopt;
  }
  return std::move(text).str();
}

std::optional<ResolvedSource> FileResolver::resolve(std::string_view path,
                                                    const SourceFile* importer,
                                                    std::string& why_not) const {
  const fs::path p(path);
  std::vector<std::pair<fs::path, fs::path>> candidates;  // (on disk, as shown)
  if (!importer || p.is_absolute()) {
    candidates.emplace_back(p, p);
  } else {
    candidates.emplace_back(fs::path(importer->key()).parent_path() / p,
                            (fs::path(importer->name()).parent_path() / p).lexically_normal());
    for (const fs::path& dir : search_paths_)
      candidates.emplace_back(dir / p, (dir / p).lexically_normal());
  }
  std::string looked;
  for (const auto& [disk, shown] : candidates) {
    std::error_code ec;
    if (!fs::exists(disk, ec)) {
      looked += fmt::format("{}`{}`", looked.empty() ? "" : ", ", disk.parent_path().string());
      continue;
    }
    std::string err;
    auto text = read_file(disk, err);
    if (!text) {
      why_not = err;
      return std::nullopt;
    }
    const fs::path canonical = fs::weakly_canonical(disk, ec);
    return ResolvedSource{ec ? disk.string() : canonical.string(), shown.string(),
                          std::move(*text)};
  }
  why_not = importer && !p.is_absolute() ? fmt::format("looked in {}", looked)
                                         : fmt::format("no such file");
  return std::nullopt;
}

void MemoryResolver::add(std::string name, std::string text) {
  files_[fs::path(name).lexically_normal().generic_string()] = std::move(text);
}

std::optional<ResolvedSource> MemoryResolver::resolve(std::string_view path,
                                                      const SourceFile* importer,
                                                      std::string& why_not) const {
  std::vector<std::string> candidates;
  if (importer)
    candidates.push_back((fs::path(importer->key()).parent_path() / fs::path(path))
                             .lexically_normal()
                             .generic_string());
  candidates.push_back(fs::path(path).lexically_normal().generic_string());
  for (const std::string& c : candidates)
    if (auto it = files_.find(c); it != files_.end()) return ResolvedSource{c, c, it->second};
  why_not = "no such file among the embedded sources";
  return std::nullopt;
}

}  // namespace rw::dsl
