// rwcheck lint: shadowed rules, undo pairs, growth, unknown ops.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tools/rwcheck/lint.hpp"
#include "tools/rwcheck/rwcheck_fixtures.hpp"

using rw::test::check_golden;
using rw::test::pt_environment;
using rw::test::rwcheck;

TEST_CASE("lint reports each finding at its rule, and exits 1", "[rwcheck]") {
  const auto r = rwcheck({"lint", "tests/tools/rwcheck/golden/lint.rules"}, pt_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("lint.txt", r.out);
}

TEST_CASE("lint of clean rules finds nothing and exits 0", "[rwcheck]") {
  const auto r = rwcheck({"lint", "examples/rules"}, pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "6 rules checked, 0 findings\n");
}

TEST_CASE("lint reports an unknown op as an error with its location, as loading does", "[rwcheck]") {
  const auto r =
      rwcheck({"lint", "tests/tools/rwcheck/golden/lint_unknown.rules"}, pt_environment());
  CHECK(r.status == 2);
  // The file loads nothing: no count of checked rules is printed.
  CHECK(r.out.empty());
  check_golden("lint_unknown.txt", r.err);
}

TEST_CASE("lint of a file with other errors exits 2 without a summary line", "[rwcheck]") {
  const auto r = rwcheck({"lint", "tests/tools/rwcheck/golden/bad.rules"}, pt_environment());
  CHECK(r.status == 2);
  CHECK(r.err.find("error: expected `:`, found `log`") != std::string::npos);
  CHECK(r.out.empty());
  CHECK(r.err.find("rules checked") == std::string::npos);
  // Also when another file given with it is clean.
  const auto two = rwcheck({"lint", "examples/rules", "tests/tools/rwcheck/golden/bad.rules"},
                           pt_environment());
  CHECK(two.status == 2);
  CHECK(two.out.empty());
}

TEST_CASE("a `# lint: allow(KIND)` comment silences that kind at the next rule only",
          "[rwcheck]") {
  const auto r = rwcheck({"lint", "tests/tools/rwcheck/golden/lint_allow.rules"}, pt_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("lint_allow.txt", r.out);
  const auto mentions = [&](const std::string& s) { return r.out.find(s) != std::string::npos; };
  // Allowed: `softplus` shadowed, `exp_of_sum` growing, `mul_one_left`'s note.
  CHECK_FALSE(mentions("rule `softplus` is shadowed"));
  CHECK_FALSE(mentions("rule `exp_of_sum`"));
  CHECK_FALSE(mentions("rule `mul_one_left`"));
  // Another kind allowed, or the comment before another rule: still reported.
  CHECK(mentions("rule `softplus2` is shadowed by `log1p_of_add`"));
  CHECK(mentions("rule `sum_sqr` grows the graph"));
  // Wrong comments are findings themselves.
  CHECK(mentions("lint_allow.rules:14:15: warning: unknown lint kind `shadow` in `# lint: "
                 "allow(...)`; the kinds are `shadowed`, `undo`, `growth`; did you mean "
                 "`shadowed`?"));
  CHECK(mentions("lint_allow.rules:16:1: warning: a `# lint: allow` comment must be on the line "
                 "just before the rule it is about"));
  CHECK(mentions("lint_allow.rules:19:1: warning: expected `# lint: allow(KIND, ...)`"));
  CHECK(r.out.ends_with("11 rules checked, 8 findings\n"));
}

TEST_CASE("shadowing by a guarded rule is a note, not a finding", "[rwcheck]") {
  auto db = rw::make_standard_db();
  rw::check::RuleSet set;
  set.db = db;
  set.loads.push_back(rw::dsl::load_rules_text_into(
      *db, "t.rules",
      "ruleset a tags(canonicalize)\n"
      "rule g: x * y => x where float(y)\nrule h: x * 1 => x\n",
      rw::test::pt_registry(), {}));
  set.sources.push_back("t.rules");
  const auto found = rw::check::lint_rules(set);
  REQUIRE(found.size() == 1);
  CHECK(found[0].kind == "shadowed");
  CHECK(found[0].diagnostic.severity == rw::dsl::Severity::Note);
  CHECK(found[0].diagnostic.render().starts_with(
      "t.rules:3:6: note: rule `h` is shadowed by `g` wherever the guard of `g` holds"));
  REQUIRE(found[0].diagnostic.notes.size() == 1);
  CHECK(found[0].diagnostic.notes[0].message == "`g` is here, with its guard");
  // A rule without a guard that shadows too makes it a warning, naming that rule.
  set.loads.clear();
  auto db2 = rw::make_standard_db();
  set.db = db2;
  set.loads.push_back(rw::dsl::load_rules_text_into(
      *db2, "t.rules",
      "ruleset a tags(canonicalize)\n"
      "rule g: x * y => x where float(y)\nrule u: x * y => y\nrule h: x * 1 => x\n",
      rw::test::pt_registry(), {}));
  const auto both = rw::check::lint_rules(set);
  REQUIRE(both.size() == 2);  // h shadowed by u; u shadowed by g where g's guard holds
  CHECK(both[0].diagnostic.severity == rw::dsl::Severity::Note);
  CHECK(both[0].diagnostic.message.starts_with("rule `u` is shadowed by `g` wherever"));
  CHECK(both[1].diagnostic.severity == rw::dsl::Severity::Warning);
  CHECK(both[1].diagnostic.message.starts_with("rule `h` is shadowed by `u`:"));
}

TEST_CASE("lint --json gives each finding with its kind and place", "[rwcheck]") {
  const auto r =
      rwcheck({"lint", "--json", "tests/tools/rwcheck/golden/lint.rules"}, pt_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("lint.json", r.out);
  CHECK(r.out.starts_with("{\n  \"schema\": 1,\n  \"command\": \"lint\",\n"));
  CHECK(r.out.find("\"kind\": \"undo\"") != std::string::npos);
  CHECK(r.out.find("\"findings\": 6,") != std::string::npos);
  // Bad input stays text on stderr, and exits 2.
  const auto bad = rwcheck({"lint", "--json", "tests/tools/rwcheck/golden/lint_unknown.rules"},
                           pt_environment());
  CHECK(bad.status == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("error: unknown op `lgo`") != std::string::npos);
}

TEST_CASE("shadowing respects guards, priorities and groups", "[rwcheck]") {
  auto findings = [](const std::string& text) {
    auto db = rw::make_standard_db();
    rw::check::RuleSet set;
    set.db = db;
    set.loads.push_back(
        rw::dsl::load_rules_text_into(*db, "t.rules", text, rw::test::pt_registry(), {}));
    set.sources.push_back("t.rules");
    std::vector<std::string> messages;
    for (const auto& f : rw::check::lint_rules(set))
      if (f.diagnostic.severity == rw::dsl::Severity::Warning) messages.push_back(f.diagnostic.message);
    return messages;
  };
  // A guarded earlier rule does not shadow.
  CHECK(findings("ruleset a tags(canonicalize)\n"
                 "rule g: x * y => x where float(y)\nrule h: x * 1 => x\n")
            .empty());
  // A later rule of higher priority is tried first.
  CHECK(findings(
            "ruleset a tags(canonicalize)\n"
            "rule g: log(1 + x) => log1p(x)\nrule h priority 2: log(1 + exp(x)) => softplus(x)\n")
            .empty());
  // Rules of different groups do not shadow each other.
  CHECK(findings("ruleset a tags(canonicalize)\nrule g: log(1 + x) => log1p(x)\n"
                 "ruleset b tags(stabilize)\nrule h: log(1 + exp(x)) => softplus(x)\n")
            .empty());
  // A literal parameter is less general than a parameter variable.
  CHECK(findings("ruleset a tags(canonicalize)\n"
                 "rule g: sum(x, axis=none) => x\nrule h: sum(x, axis=?a) => x\n")
            .empty());
  CHECK(findings("ruleset a tags(canonicalize)\n"
                 "rule g: sum(x, axis=?a) => x\nrule h: sum(exp(x), axis=none) => x\n")
            .size() == 1);
  // A rule that keeps a term the same size and does not match it again is fine.
  CHECK(findings("ruleset a tags(canonicalize)\nrule d: dot(a, b) => sum(a * b)\n").empty());
}

TEST_CASE("lint finds the more general rule among many that share a root", "[rwcheck]") {
  // Lint looks up the rules that may be more general by a discrimination
  // tree of their left sides: these check that it still finds them, at any
  // depth, through variables, and not where a literal or an Op differs.
  auto findings = [](const std::string& rules) {
    auto db = rw::make_standard_db();
    rw::check::RuleSet set;
    set.db = db;
    set.loads.push_back(rw::dsl::load_rules_text_into(
        *db, "t.rules", "ruleset a tags(canonicalize)\n" + rules, rw::test::pt_registry(), {}));
    set.sources.push_back("t.rules");
    std::vector<std::string> messages;
    for (const auto& f : rw::check::lint_rules(set))
      if (f.diagnostic.severity == rw::dsl::Severity::Warning) messages.push_back(f.diagnostic.message);
    return messages;
  };
  std::string many;
  for (int i = 0; i < 300; ++i)
    many += "rule r" + std::to_string(i) + ": exp(x * " + std::to_string(i) + ".5) => exp(x)\n";
  CHECK(findings(many).empty());
  // The same literal two levels down, 250 rules later: shadowed by r7 alone.
  const auto late = findings(many + "rule late: exp(y * 7.5) => exp(y)\n");
  REQUIRE(late.size() == 1);
  CHECK(late[0].starts_with("rule `late` is shadowed by `r7`"));
  // A variable where the others have a product: more general than all of
  // them, and so shadows none that come before it but every one after.
  const auto general = findings("rule g: exp(z) => exp(z)\n" + many);
  CHECK(std::count_if(general.begin(), general.end(), [](const std::string& m) {
          return m.find("is shadowed by `g`") != std::string::npos;
        }) == 300);
  // A variable below the root in the earlier rule: shadows a deeper product.
  const auto deep = findings("rule g: exp(x * y) => exp(x)\nrule h: exp(exp(a) * 2.5) => exp(a)\n");
  REQUIRE(deep.size() == 1);
  CHECK(deep[0].starts_with("rule `h` is shadowed by `g`"));
  // Another Op or literal at the same place: no finding.
  CHECK(findings("rule g: exp(x * 2.5) => exp(x)\nrule h: exp(x + 2.5) => exp(x)\n"
                 "rule k: exp(x * 3.5) => exp(x)\n")
            .empty());
  // Two rules that undo each other, found through the right sides.
  const auto undo = findings("rule f: exp(x * 2.5) => exp(2.5 * x)\n"
                             "rule b: exp(2.5 * x) => exp(x * 2.5)\n");
  REQUIRE(undo.size() == 1);
  CHECK(undo[0].starts_with("rules `f` and `b` undo each other"));
}
