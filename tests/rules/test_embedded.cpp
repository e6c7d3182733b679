// The embedded standard rule library: the files as in the source tree, a load
// without diagnostics into the standard groups, and diagnostics that point
// into `rules/<file>.rules`.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"
#include "rw/rules.hpp"

namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(RW_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the embedded files are rules/*.rules as they are in the tree", "[rules]") {
  const auto files = rw::standard_rule_files();
  std::set<std::string> names;
  for (const rw::EmbeddedRuleFile& f : files) {
    names.insert(std::string(f.name));
    INFO(f.name);
    CHECK(f.text == read_source(std::string(f.name)));
  }
  CHECK(names == std::set<std::string>{"rules/blas.rules", "rules/canonicalize.rules",
                                       "rules/reductions.rules",
                                       "rules/specialize.rules", "rules/stabilize.rules"});
}

TEST_CASE("the standard library loads without diagnostics into its four groups", "[rules]") {
  auto db = rw::make_standard_db();
  const rw::dsl::PredicateRegistry predicates;
  auto result = rw::load_standard_rules_into(*db, rw::standard_registry(), predicates);
  INFO(rw::dsl::render(result.diagnostics));
  REQUIRE(result.ok());
  CHECK(result.diagnostics.empty());
  const rw::dsl::LoadedRules& loaded = *result.value;
  CHECK(loaded.size() >= 60);
  std::size_t total = 0;
  for (const auto& [group, n] : loaded.per_group()) {
    CHECK((group == "canonicalize" || group == "stabilize" || group == "specialize" ||
           group == "uncanonicalize"));
    total += n;
  }
  CHECK(total == loaded.size());
  for (const rw::dsl::CompiledRule& r : loaded.rules()) {
    INFO(r.rule->name);
    // A rule's group is the one its file is named after; a file named after a
    // family of rules (rules/blas.rules) may give any of the groups. fast_run
    // runs every rule.
    const std::string file(r.rule->file->name());
    if (file == "rules/canonicalize.rules" || file == "rules/stabilize.rules" ||
        file == "rules/specialize.rules")
      CHECK(file == "rules/" + r.group + ".rules");
    CHECK(std::find(r.tags.begin(), r.tags.end(), "fast_run") != r.tags.end());
  }
  // standard_db() holds the same rules.
  CHECK(rw::standard_rules().names() == loaded.names());
}

TEST_CASE("a failed load of the library names rules/<file>.rules and registers nothing",
          "[rules]") {
  auto db = rw::make_standard_db();
  // Take the name of one of the library's rules, so its registration fails.
  db->sub<rw::EquilibriumDB>("stabilize")
      .add(rw::make_node_rewriter(
               "log_softmax", {"log"},
               [](rw::FunctionGraph&, rw::Apply&, const rw::RewriteContext&) {
                 return rw::RewriteResult::fail("never applies");
               },
               0),
           {"fast_run"});
  const auto before = db->selected_names(rw::Mode::fast_run(db).query());
  const rw::dsl::PredicateRegistry predicates;
  auto result = rw::load_standard_rules_into(*db, rw::standard_registry(), predicates);
  REQUIRE_FALSE(result.ok());
  REQUIRE(result.diagnostics.size() == 1);
  const std::string text = rw::dsl::render(result.diagnostics);
  // The line of `rule log_softmax` in the embedded file, counted here.
  const std::string file = read_source("rules/stabilize.rules");
  const std::size_t at = file.find("rule log_softmax ");
  REQUIRE(at != std::string::npos);
  const auto line = 1 + std::count(file.begin(), file.begin() + static_cast<long>(at), '\n');
  INFO(text);
  CHECK(text.rfind("rules/stabilize.rules:" + std::to_string(line) + ":6: error: ", 0) == 0);
  CHECK(text.find("`log_softmax`") != std::string::npos);
  CHECK(db->selected_names(rw::Mode::fast_run(db).query()) == before);
}
