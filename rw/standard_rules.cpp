// The standard rule database: the embedded rule files loaded once, through a
// resolver that serves them from memory.
#include "rw/standard_rules.hpp"

#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/compile/op_from_graph.hpp"
#include "engine/compile/scan_rewrites.hpp"
#include "engine/dsl/resolver.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/elemwise/canonizer.hpp"
#include "ops/indexing/subtensor_rewrites.hpp"
#include "ops/inplace.hpp"
#include "ops/random/random_rewrites.hpp"
#include "ops/reduce/sum_of_product.hpp"
#include "ops/shape/shape_rewrites.hpp"
#include "ops/simplify.hpp"
#include "ops/sparse/sparse_rewrites.hpp"
#include "rules/embedded.hpp"
#include "rw/registry.hpp"

namespace rw {

dsl::LoadResult<dsl::LoadedRules> load_standard_rules_into(
    RewriteDB& db, const OpRegistry& ops, const dsl::PredicateRegistry& predicates) {
  // One load importing every file: names are unique across the library, and
  // an error anywhere registers nothing.
  auto resolver = std::make_shared<dsl::MemoryResolver>();
  std::string root;
  for (const EmbeddedRuleFile& f : standard_rule_files()) {
    resolver->add(std::string(f.name), std::string(f.text));
    root += "import \"" + std::string(f.name) + "\"\n";
  }
  return dsl::check_rules_text_into(db, kStandardRulesRoot, std::move(root), ops, predicates,
                                    {.resolver = std::move(resolver)});
}

namespace {

struct StandardRules {
  std::shared_ptr<SequenceDB> db;
  dsl::LoadedRules rules;
};

StandardRules make_default() {
  std::shared_ptr<SequenceDB> db = make_standard_db();
  register_op_from_graph_rewrites(*db);
  register_scan_rewrites(*db);
  register_fast_run_rewrites(*db);
  register_simplify_rewrites(*db);
  register_canonizers(*db);
  register_reduce_rewrites(*db);
  register_shape_rewrites(*db);
  register_subtensor_rewrites(*db);
  register_random_rewrites(*db);
  register_sparse_rewrites(*db);
  const dsl::PredicateRegistry predicates;
  dsl::LoadedRules rules = load_standard_rules_into(*db, standard_registry(), predicates).take();
  return StandardRules{std::move(db), std::move(rules)};
}

const StandardRules& standard() {
  static const StandardRules state = make_default();
  return state;
}

}  // namespace

std::shared_ptr<SequenceDB> make_default_db() { return make_default().db; }

Mode default_mode_with_rules(std::span<const std::filesystem::path> files) {
  std::shared_ptr<SequenceDB> db = make_default_db();
  const dsl::PredicateRegistry predicates;
  std::vector<dsl::Diagnostic> diagnostics;
  for (const std::filesystem::path& f : files) {
    dsl::LoadResult<dsl::LoadedRules> r =
        dsl::check_rules_into(*db, f.string(), standard_registry(), predicates);
    diagnostics.insert(diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
  }
  if (dsl::count_errors(diagnostics) > 0) throw dsl::LoadError(std::move(diagnostics));
  return Mode::fast_run(db);
}

Mode default_mode_with_rules(const std::filesystem::path& file) {
  return default_mode_with_rules(std::span(&file, 1));
}

std::optional<std::filesystem::path> standard_rules_dir() {
  namespace fs = std::filesystem;
  const auto holds_rules = [](const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".rules") return true;
    return false;
  };
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("RWGRAPH_RULES_DIR"); env && *env) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  // <prefix>/bin/program -> <prefix>/share/rwgraph/rules
  if (!ec && exe.parent_path().filename() == fs::path(RW_INSTALL_BINDIR).filename())
    candidates.push_back(exe.parent_path().parent_path() / RW_INSTALL_RULES_SUBDIR);
  candidates.emplace_back(RW_INSTALL_RULES_DIR);
  for (const fs::path& dir : candidates)
    if (holds_rules(dir)) return dir.lexically_normal();
  return std::nullopt;
}

std::shared_ptr<const RewriteDB> standard_db() { return standard().db; }

const dsl::LoadedRules& standard_rules() { return standard().rules; }

Mode default_mode() { return Mode::fast_run(standard_db()); }

}  // namespace rw
