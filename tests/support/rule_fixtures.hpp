// Helpers of the tests that load rules into a rewrite database: the toy ops
// under the rules language's operator names, loading into a fresh standard
// database, and running the loaded rules to a fixed point.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/dsl/rule_registration.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/standard.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

namespace rw::test {

/// The toy ops (which have perform) with `true_div` — what `/` means in the
/// rules language — as another name of their `div`.
inline const OpRegistry& toy_rule_registry() {
  static const OpRegistry registry = [] {
    OpRegistry r = toy_registry();
    r.add_alias("true_div", "div");
    return r;
  }();
  return registry;
}

/// Listens to a run's trace.
struct Traced {
  Trace trace;
  std::shared_ptr<TraceRecorder> rec;
  RewriteContext ctx;
  explicit Traced(bool attempts = false) : rec(std::make_shared<TraceRecorder>(attempts)) {
    trace.subscribe(rec);
    ctx.trace = &trace;
  }
  bool has(const std::string& line) const {
    return std::find(rec->lines().begin(), rec->lines().end(), line) != rec->lines().end();
  }
};

/// Rules loaded into a fresh standard database.
struct LoadedInto {
  std::shared_ptr<SequenceDB> db;
  dsl::LoadedRules rules;

  /// Every loaded rule's rewriter.
  std::vector<NodeRewriterPtr> rewriters() const {
    std::vector<NodeRewriterPtr> out;
    for (const dsl::CompiledRule& r : rules.rules()) out.push_back(r.rewriter);
    return out;
  }
  /// The loaded rules alone, to a fixed point, on `outputs`; the result in
  /// infix form.
  std::string run(std::vector<Var> inputs, std::vector<Var> outputs,
                  RewriteContext* ctx = nullptr) const {
    FunctionGraph fg(std::move(inputs), std::move(outputs));
    EquilibriumRewriter eq("rules", rewriters());
    RewriteContext silent;
    const PassReport report = eq.rewrite(fg, ctx ? *ctx : silent);
    fg.check_integrity();
    CHECK(report.ok());
    return infix(fg);
  }
};

/// Loads `text` (named `test.rules`) into a fresh standard database.
inline LoadedInto load_into(const std::string& text, const OpRegistry& ops,
                            const dsl::PredicateRegistry& predicates = {}) {
  auto db = make_standard_db();
  dsl::LoadedRules rules = dsl::load_rules_text_into(*db, "test.rules", text, ops, predicates);
  return {db, std::move(rules)};
}

}  // namespace rw::test
