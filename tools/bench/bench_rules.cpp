// Benchmark of rule files: loading the standard library (parse, check,
// compile, register), and `rwcheck lint` on files made to be hard for it —
// many rules that share a root and differ below it, and one rule with very
// many variables. The default mode on the reference graphs is bench_rewrite's.
//   bench_rules
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "rw/rewrite.hpp"
#include "rw/rules.hpp"
#include "tools/rwcheck/lint.hpp"
#include "tools/rwcheck/rule_sources.hpp"

namespace {

constexpr const char* kHeader = "ruleset bench tags(canonicalize, fast_run)\n";

/// `n` rules rooted at `exp`, the same down to a literal two levels below.
std::string shared_root_rules(int n) {
  std::string text = kHeader;
  for (int i = 0; i < n; ++i)
    text += fmt::format("rule r{}: exp(x * {}.5) => exp(x) * {}.25\n", i, i, i);
  return text;
}

/// One rule whose sides are a sum of `n` distinct variables.
std::string many_variables_rule(int n) {
  std::string args;
  for (int i = 0; i < n; ++i) args += fmt::format("{}v{}", i ? ", " : "", i);
  return fmt::format("{}rule big: add({}) => add({})\n", kHeader, args, args);
}

/// The median time of lint over `text` (loaded once), and its finding count.
void bench_lint(const std::string& name, long long n, const std::string& text) {
  rw::check::RuleSet set;
  set.db = rw::make_standard_db();
  set.loads.push_back(
      rw::dsl::load_rules_text_into(*set.db, name + ".rules", text, rw::standard_registry(), {}));
  set.sources.push_back(name + ".rules");
  std::size_t findings = 0;
  const double t = rw::bench::median_time(
      [&] { findings = rw::check::lint_rules(set).size(); }, 5, 1);
  rw::bench::report("lint_" + name, n, t, fmt::format(" findings={}", findings));
}

}  // namespace

int main() {
  const rw::OpRegistry& ops = rw::standard_registry();
  std::size_t n = 0;
  const double load = rw::bench::median_time(
      [&] {
        auto db = rw::make_standard_db();
        const rw::dsl::PredicateRegistry predicates;
        n = rw::load_standard_rules_into(*db, ops, predicates).take().size();
      },
      9, 2);
  rw::bench::report("load_standard_rules", static_cast<long long>(n), load);

  for (int rules : {1000, 10000}) bench_lint("shared_root", rules, shared_root_rules(rules));
  for (int vars : {10000, 100000}) bench_lint("many_variables", vars, many_variables_rule(vars));
  return 0;
}
