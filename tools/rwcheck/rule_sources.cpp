// Loading rwcheck's rules.
#include "tools/rwcheck/rule_sources.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "tools/rwcheck/cli.hpp"

namespace rw::check {

namespace fs = std::filesystem;

std::vector<std::string> rule_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const fs::directory_entry& e : fs::directory_iterator(p, ec))
        if (e.path().extension() == ".rules" && !e.is_directory())
          found.push_back(e.path().string());
      if (ec) throw InputError(fmt::format("cannot read the directory `{}`: {}", p, ec.message()));
      if (found.empty())
        throw InputError(fmt::format("the directory `{}` has no `*.rules` files", p));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      // A missing file is reported by the loader, as for any rule file.
      files.push_back(p);
    }
  }
  return files;
}

std::vector<RuleRef> RuleSet::rules() const {
  std::vector<RuleRef> out;
  for (std::size_t i = 0; i < loads.size(); ++i)
    for (const dsl::CompiledRule& r : loads[i].rules()) out.push_back({&r, sources[i]});
  return out;
}

const dsl::CompiledRule* RuleSet::find(std::string_view name) const {
  for (const dsl::LoadedRules& l : loads)
    if (const dsl::CompiledRule* r = l.find(name)) return r;
  return nullptr;
}

RuleSetLoad load_rule_set(const CheckEnvironment& env, const std::vector<std::string>& files,
                          bool use_builtin) {
  RuleSetLoad out;
  out.set.db = env.make_db();
  auto take = [&](dsl::LoadResult<dsl::LoadedRules> r, std::string source) {
    if (r.ok()) {
      out.set.loads.push_back(std::move(*r.value));
      out.set.sources.push_back(std::move(source));
    }
    out.diagnostics.insert(out.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
  };
  if (files.empty() && use_builtin && env.load_builtin)
    take(env.load_builtin(*out.set.db, *env.ops, env.predicates), env.builtin_name);
  for (const std::string& f : files)
    take(dsl::check_rules_into(*out.set.db, f, *env.ops, env.predicates), f);
  return out;
}

}  // namespace rw::check
