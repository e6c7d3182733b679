// rw::load_rules (<rw/rules.hpp>): the one way a program loads rules — a
// file or text, its imports, the program's predicates — into a database.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "rw/rules.hpp"
#include "rw/rw.hpp"
#include "support/doc_snippets.hpp"
#include "support/temp_dir.hpp"

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("rw::load_rules: a rule file with its imports and the program's predicates", "[rw]") {
  const rw::test::TempDir dir("rules");
  const rw::test::TempDir lib("rules-lib");
  write(lib.path() / "cosh.rules",
        "ruleset cosh tags(canonicalize, fast_run)\n"
        "rule cosh_as_exp: cosh(x) => (exp(x) + exp(-x)) / 2 where vector(x)\n");
  write(dir.path() / "mine.rules", "import \"cosh.rules\"\n");
  const std::filesystem::path mine = dir.path() / "mine.rules";
  const std::filesystem::path rules_dir = lib.path();
  // [doc:load-rules]
  rw::dsl::PredicateRegistry predicates;  // the built-in predicates, and the program's own
  predicates.add("vector", 1, "a tensor of rank 1",
                 [](std::span<const rw::Var> args, const rw::FunctionGraph*) {
                   const rw::TensorType* t = args[0]->tensor_type();
                   return t && t->ndim() == 1;
                 });
  auto db = rw::make_default_db();
  rw::dsl::LoadResult<rw::dsl::LoadedRules> loaded = rw::load_rules(
      *db, rw::RuleSource::file(mine), {.predicates = &predicates, .search_paths = {rules_dir}});
  if (!loaded.ok()) std::fputs(rw::dsl::render(loaded.diagnostics).c_str(), stderr);

  auto x = rw::vector("x", rw::f64);
  rw::Function f = rw::function({x}, {rw::cosh(x)}, {}, rw::Mode::fast_run(db));
  // [/doc:load-rules]
  REQUIRE(loaded.ok());
  CHECK(loaded.value->names() == std::vector<std::string>{"cosh_as_exp"});
  CHECK(loaded.value->per_group() == std::map<std::string, std::size_t>{{"canonicalize", 1}});
  const auto [v] = f(rw::Tensor::from({0.0, 1.0, -2.0}));
  CHECK(v.to_string() == rw::Tensor::from({1.0, std::cosh(1.0), std::cosh(-2.0)}).to_string());
  rw::FunctionGraph fg({x}, {rw::cosh(x)});
  rw::Mode::fast_run(db).rewrite(fg);
  CHECK(rw::to_infix(fg.outputs()[0]).find("cosh") == std::string::npos);
  CHECK(rw::test::missing_doc_block(RW_SOURCE_DIR "/tests/rw/test_rules.cpp", "load-rules",
                                    RW_SOURCE_DIR "/docs/rules-language.md") == "");
}

TEST_CASE("rw::load_rules: rule text, with the standard registry by default", "[rw]") {
  auto db = rw::make_default_db();
  const rw::dsl::LoadedRules loaded =
      rw::load_rules(*db, rw::RuleSource::text("inline.rules",
                                               "ruleset s tags(canonicalize, fast_run)\n"
                                               "rule cosh_zero: cosh(0) => 1\n"))
          .take();
  REQUIRE(loaded.find("cosh_zero"));
  CHECK(loaded.find("cosh_zero")->group == "canonicalize");
  CHECK(loaded.find("cosh_zero")->pattern() == "cosh(0)");
}

TEST_CASE("rw::load_rules: a text with errors registers nothing and says where", "[rw]") {
  auto db = rw::make_default_db();
  const std::string text =
      "ruleset s tags(canonicalize, fast_run)\n"
      "rule good: cosh(0) => 1\n"
      "rule bad: cosh(x) => lgo(x)\n";
  rw::dsl::LoadResult<rw::dsl::LoadedRules> r =
      rw::load_rules(*db, rw::RuleSource::text("bad.rules", text));
  CHECK_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(rw::dsl::render(r.diagnostics).find("bad.rules:3:22: error: unknown op `lgo`") !=
        std::string::npos);
  CHECK_THROWS_AS(rw::load_rules(*db, rw::RuleSource::text("bad.rules", text)).take(),
                  rw::dsl::LoadError);
  // Nothing of the file was registered: `good` can still be loaded under its name.
  const rw::dsl::LoadedRules again =
      rw::load_rules(*db, rw::RuleSource::text("good.rules",
                                               "ruleset s tags(canonicalize, fast_run)\n"
                                               "rule good: cosh(0) => 1\n"))
          .take();
  CHECK(again.names() == std::vector<std::string>{"good"});
}

TEST_CASE("rw::load_rules: a missing file is a diagnostic, not an exception", "[rw]") {
  auto db = rw::make_default_db();
  const rw::test::TempDir dir("rules-missing");
  rw::dsl::LoadResult<rw::dsl::LoadedRules> r =
      rw::load_rules(*db, rw::RuleSource::file(dir.path() / "none.rules"));
  CHECK_FALSE(r.ok());
  CHECK(rw::dsl::count_errors(r.diagnostics) == 1);
}
