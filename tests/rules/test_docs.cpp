// docs/rules-library.md lists every rule of the standard library in the table
// of its group, with the rewrite as the rule file writes it.
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "rw/rules.hpp"
#include "rw/rw.hpp"

TEST_CASE("docs/rules-library.md has a row for every standard rule, in its group", "[rules]") {
  std::ifstream in(std::string(RW_SOURCE_DIR) + "/docs/rules-library.md");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  REQUIRE_FALSE(doc.empty());
  for (const rw::dsl::CompiledRule& r : rw::standard_rules().rules()) {
    INFO("rule `" << r.rule->name << "` (group `" << r.group << "`)");
    const std::size_t section = doc.find("### `" + r.group + "`");
    REQUIRE(section != std::string::npos);
    const std::size_t next = doc.find("\n### ", section + 1);
    const std::size_t row = doc.find("\n| `" + r.rule->name + "`", section);
    CHECK(row != std::string::npos);
    CHECK(row < next);
  }
  // The counts in the headings are the library's.
  for (const auto& [group, n] : rw::standard_rules().per_group())
    CHECK(doc.find("### `" + group + "` (" + std::to_string(n) + " rules") != std::string::npos);
}
