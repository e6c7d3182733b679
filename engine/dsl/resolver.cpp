// FileResolver and MemoryResolver.
#include "engine/dsl/resolver.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <new>
#include <vector>

#include <fmt/format.h>

namespace rw::dsl {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const fs::path& path, std::string& why_not,
                                     std::size_t max_bytes) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    why_not = fmt::format("`{}` is a directory", path.string());
    return std::nullopt;
  }
  const auto too_large = [&](std::string_view size) {
    why_not = fmt::format("`{}` is too large ({}; the limit is {} bytes)", path.string(), size,
                          max_bytes);
    return std::nullopt;
  };
  // A regular file says its size; anything else (a device, a pipe) is read
  // in pieces and refused once it passes the limit.
  const std::uintmax_t size = fs::is_regular_file(path, ec) ? fs::file_size(path, ec) : 0;
  if (!ec && size > max_bytes) return too_large(fmt::format("{} bytes", size));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why_not = fmt::format("cannot open `{}`: {}", path.string(), std::strerror(errno));
    return std::nullopt;
  }
  std::string text;
  try {
    constexpr std::size_t kPiece = std::size_t{1} << 16;
    text.reserve(static_cast<std::size_t>(std::min<std::uintmax_t>(size, max_bytes)));
    std::vector<char> piece(kPiece);
    while (in) {
      in.read(piece.data(), static_cast<std::streamsize>(kPiece));
      const auto got = static_cast<std::size_t>(in.gcount());
      if (got > max_bytes - text.size()) return too_large(fmt::format("more than {} bytes", max_bytes));
      text.append(piece.data(), got);
    }
  } catch (const std::bad_alloc&) {
    why_not = fmt::format("cannot read `{}`: out of memory", path.string());
    return std::nullopt;
  }
  if (in.bad()) {
    why_not = fmt::format("cannot read `{}`", path.string());
    return std::nullopt;
  }
  return text;
}

std::optional<ResolvedSource> FileResolver::resolve(std::string_view path,
                                                    const SourceFile* importer,
                                                    std::string& why_not) const {
  if (path.find('\0') != std::string_view::npos) {
    why_not = "the path contains a NUL byte";  // the file system would read another file
    return std::nullopt;
  }
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
