// rw::load_rules: the loaders of engine/dsl with the library's defaults.
#include "rw/rules.hpp"

#include <memory>
#include <utility>

#include "engine/dsl/rule_registration.hpp"
#include "rw/registry.hpp"

namespace rw {

RuleSource RuleSource::file(std::filesystem::path path) {
  return RuleSource{path.string(), std::nullopt};
}

RuleSource RuleSource::text(std::string name, std::string text) {
  return RuleSource{std::move(name), std::move(text)};
}

dsl::LoadResult<dsl::LoadedRules> load_rules(RewriteDB& db, const RuleSource& source,
                                             const RuleOptions& options) {
  const OpRegistry& ops = options.ops ? *options.ops : standard_registry();
  const dsl::PredicateRegistry builtins;
  const dsl::PredicateRegistry& predicates = options.predicates ? *options.predicates : builtins;
  const dsl::RuleLoadOptions load{.resolver = nullptr, .search_paths = options.search_paths};
  if (source.contents)
    return dsl::check_rules_text_into(db, source.name, *source.contents, ops, predicates, load);
  return dsl::check_rules_into(db, source.name, ops, predicates, load);
}

}  // namespace rw
