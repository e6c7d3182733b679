// Snippet extraction from sources and markdown.
#include "support/doc_snippets.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rw::test {

namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b);
}

}  // namespace

std::string source_snippet(const std::string& path, const std::string& name) {
  const std::vector<std::string> lines = read_lines(path);
  const std::string open = "// [doc:" + name + "]", close = "// [/doc:" + name + "]";
  std::size_t begin = lines.size(), end = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]) == open) begin = i + 1;
    else if (trim(lines[i]) == close && begin < lines.size()) {
      end = i;
      break;
    }
  }
  if (begin >= lines.size() || end >= lines.size())
    throw std::runtime_error("no snippet `" + name + "` in " + path);
  std::size_t indent = std::string::npos;
  for (std::size_t i = begin; i < end; ++i)
    if (!trim(lines[i]).empty()) indent = std::min(indent, lines[i].find_first_not_of(" \t"));
  std::string out;
  for (std::size_t i = begin; i < end; ++i)
    out += (lines[i].size() > indent ? lines[i].substr(indent) : std::string()) + "\n";
  return out;
}

std::vector<std::string> markdown_cpp_blocks(const std::string& path) {
  std::vector<std::string> blocks;
  std::string current;
  bool inside = false;
  for (const std::string& line : read_lines(path)) {
    if (!inside && line.rfind("```cpp", 0) == 0) {
      inside = true;
      current.clear();
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
      blocks.push_back(current);
    } else if (inside) {
      current += line + "\n";
    }
  }
  return blocks;
}

std::string missing_doc_block(const std::string& source, const std::string& name,
                              const std::string& page) {
  const std::string code = source_snippet(source, name);
  const std::vector<std::string> blocks = markdown_cpp_blocks(page);
  if (std::find(blocks.begin(), blocks.end(), code) != blocks.end()) return "";
  return page + " must contain this ```cpp block:\n" + code;
}

}  // namespace rw::test
