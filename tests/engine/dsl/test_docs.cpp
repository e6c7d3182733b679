// The examples in docs/rules-language.md and docs/graph-files.md are checked:
// every ```rules and ```graph block must load; a ```rules-error or
// ```graph-error block must fail with exactly the diagnostics of the ```text
// block that follows it. A block may be named (```rules file=std.rules) so
// that other blocks can import it.
#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;
namespace fs = std::filesystem;

namespace {

struct Block {
  std::string info;  // the word after ```
  std::string file;  // from file=NAME, or empty
  std::string text;
  std::size_t line = 0;
};

std::vector<Block> blocks_of(const fs::path& doc) {
  std::string why;
  const auto text = read_file(doc, why);
  REQUIRE(text);
  std::vector<Block> out;
  std::istringstream in(*text);
  std::string line;
  std::size_t n = 0;
  Block* open = nullptr;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      if (open) {
        open = nullptr;
        continue;
      }
      Block b;
      std::istringstream words(line.substr(3));
      words >> b.info;
      std::string w;
      while (words >> w)
        if (w.rfind("file=", 0) == 0) b.file = w.substr(5);
      b.line = n;
      out.push_back(std::move(b));
      open = &out.back();
      continue;
    }
    if (open) open->text += line + "\n";
  }
  REQUIRE(open == nullptr);
  return out;
}

void check_doc(const fs::path& doc, std::size_t min_examples) {
  const std::vector<Block> blocks = blocks_of(doc);
  PredicateRegistry predicates;
  predicates.add("positive", 1, "every element is positive",
                 [](std::span<const Var>, const FunctionGraph*) { return true; });
  auto files = std::make_shared<MemoryResolver>();
  for (const Block& b : blocks)
    if (!b.file.empty()) files->add(b.file, b.text);

  std::size_t checked = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    const bool is_rules = b.info == "rules" || b.info == "rules-error";
    const bool is_graph = b.info == "graph" || b.info == "graph-error";
    if (!is_rules && !is_graph) continue;
    const std::string name =
        b.file.empty() ? (is_rules ? "example.rules" : "example.graph") : b.file;
    INFO(doc.filename().string() << " line " << b.line << ":\n" << b.text);
    std::vector<Diagnostic> diagnostics;
    bool ok = false;
    if (is_rules) {
      auto r = check_rules_text(name, b.text, test::pt_registry(), predicates, {files, {}});
      ok = r.ok();
      diagnostics = std::move(r.diagnostics);
    } else {
      auto r = check_graph_text(name, b.text, test::pt_registry());
      ok = r.ok();
      diagnostics = std::move(r.diagnostics);
    }
    const std::string got = render(diagnostics);
    INFO("Output:\n" << got);
    if (b.info.ends_with("-error")) {
      REQUIRE(i + 1 < blocks.size());
      REQUIRE(blocks[i + 1].info == "text");
      CHECK_FALSE(ok);
      CHECK(got == blocks[i + 1].text);
    } else {
      CHECK(ok);
      CHECK(diagnostics.empty());
    }
    ++checked;
  }
  CHECK(checked >= min_examples);
}

}  // namespace

TEST_CASE("the rules language reference's examples load as documented", "[dsl]") {
  check_doc(fs::path(RW_SOURCE_DIR) / "docs/rules-language.md", 10);
}

TEST_CASE("the graph file reference's examples load as documented", "[dsl]") {
  check_doc(fs::path(RW_SOURCE_DIR) / "docs/graph-files.md", 3);
}
