// Modes for the tests of the umbrella: the default pipeline with a few more
// rules, made wrong on purpose where a test needs a rule to blame.
#pragma once

#include <string>

#include "engine/dsl/rule_registration.hpp"
#include "rw/rules.hpp"
#include "rw/rw.hpp"

namespace rw::test {

/// The default pipeline with `rules` (a rule file's text) loaded after the
/// standard rules.
inline Mode with_rules(const std::string& rules) {
  auto db = make_default_db();
  dsl::load_rules_text_into(*db, "extra.rules", rules, standard_registry(),
                            dsl::PredicateRegistry{});
  return Mode::fast_run(db);
}

}  // namespace rw::test
