// Golden diagnostics: each errors/NAME.rules or errors/NAME.graph is loaded
// and everything it reports must equal errors/NAME.expected. Files under
// errors/imports/ are only imported. RW_UPDATE_GOLDEN=1 rewrites the
// .expected files (review the diff before committing it).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "engine/dsl/graph_file.hpp"
#include "rw/graph_files.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::string why;
  auto text = read_file(p, why);
  REQUIRE(text);
  return *text;
}

}  // namespace

TEST_CASE("golden diagnostics of bad rule and graph files", "[dsl]") {
  const fs::path dir = fs::path(RW_SOURCE_DIR) / "tests/engine/dsl/errors";
  auto files = std::make_shared<MemoryResolver>();
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() != ".expected")
      files->add(fs::relative(e.path(), dir).generic_string(), slurp(e.path()));

  PredicateRegistry predicates;
  predicates.add("analysed", 1, "an analysis of the whole graph says yes",
                 [](std::span<const Var>, const FunctionGraph*) { return true; });
  const bool update = std::getenv("RW_UPDATE_GOLDEN") != nullptr;

  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".rules" || e.path().extension() == ".graph")
      cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 20);
  for (std::size_t i = 1; i < cases.size(); ++i)  // one .expected per case
    REQUIRE(cases[i - 1].stem() != cases[i].stem());

  for (const fs::path& c : cases) {
    const std::string name = c.filename().string();
    SECTION(name) {
      std::vector<Diagnostic> diagnostics;
      if (c.extension() == ".rules")
        diagnostics = check_rules(name, test::pt_registry(), predicates, {files, {}}).diagnostics;
      else
        diagnostics =
            check_graph_text(name, slurp(c), test::pt_registry(), graph_file_options()).diagnostics;
      const std::string got = render(diagnostics);
      const fs::path expected_path = fs::path(c).replace_extension(".expected");
      if (update) {
        std::ofstream(expected_path, std::ios::binary) << got;
        continue;
      }
      REQUIRE(fs::exists(expected_path));
      INFO("Input: " << name << "\nOutput:\n" << got);
      CHECK_FALSE(got.empty());
      CHECK(got == slurp(expected_path));
    }
  }
}
