// Rule loading: the import graph (cycles, not-found, de-duplication) and the
// checking of each file.
#include "engine/dsl/rule_loader.hpp"

#include <unordered_map>

#include <fmt/format.h>

#include "engine/dsl/detail/rule_checker.hpp"
#include "engine/dsl/parse.hpp"

namespace rw::dsl {

namespace {

class Loader {
 public:
  Loader(const OpRegistry& ops, const PredicateRegistry& predicates, const SourceResolver& resolver)
      : resolver_(resolver), checker_(ops, predicates, module_, diagnostics_) {}

  void load(const SourcePtr& src) {
    stack_.push_back(src);
    done_[src->key()] = false;
    ParsedFile parsed = parse(src);
    const std::size_t syntax_errors = count_errors(parsed.diagnostics);
    for (Diagnostic& d : parsed.diagnostics) diagnostics_.push_back(std::move(d));
    for (const ast::Statement& s : parsed.ast.statements)
      if (const auto* imp = std::get_if<ast::Import>(&s)) follow(src, *imp);
    checker_.check_file(parsed, syntax_errors);
    stack_.pop_back();
    done_[src->key()] = true;
    module_.files.push_back(src);
  }

  LoadResult<RuleModule> finish() {
    LoadResult<RuleModule> out;
    if (count_errors(diagnostics_) == 0) out.value = std::move(module_);
    out.diagnostics = std::move(diagnostics_);
    return out;
  }

  std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  void follow(const SourcePtr& src, const ast::Import& imp) {
    if (imp.path.find('\0') != std::string::npos) {
      // The file system would cut the path there and load another file.
      diagnostics_.push_back(
          make_error(src, imp.path_span, "an import path cannot contain a NUL byte"));
      return;
    }
    std::string why;
    auto found = resolver_.resolve(imp.path, src.get(), why);
    if (!found) {
      diagnostics_.push_back(make_error(src, imp.path_span,
                                        fmt::format("cannot find import `{}`; {}", imp.path, why)));
      return;
    }
    if (auto it = done_.find(found->key); it != done_.end()) {
      if (it->second) return;  // already loaded through another import
      std::string chain;
      bool on = false;
      for (const SourcePtr& f : stack_) {
        on = on || f->key() == found->key;
        if (on) chain += fmt::format("`{}` imports ", f->name());
      }
      chain += fmt::format("`{}`", found->name);
      diagnostics_.push_back(
          make_error(src, imp.path_span, fmt::format("import cycle: {}", chain)));
      return;
    }
    if (stack_.size() >= kMaxImportDepth) {
      // Loading recurses once per level: a bound keeps it within the stack.
      diagnostics_.push_back(make_error(
          src, imp.path_span,
          fmt::format("imports nest too deeply: `{}` imports `{}`, which would make a chain of "
                      "more than {} files",
                      src->name(), found->name, kMaxImportDepth)));
      return;
    }
    const std::size_t first = diagnostics_.size();
    load(SourceFile::make(std::move(found->name), std::move(found->text), std::move(found->key)));
    for (std::size_t i = first; i < diagnostics_.size(); ++i)
      diagnostics_[i].notes.push_back(make_note(
          src, imp.path_span, fmt::format("`{}` is imported here", module_.files.back()->name())));
  }

  const SourceResolver& resolver_;
  RuleModule module_;
  std::vector<Diagnostic> diagnostics_;
  detail::RuleChecker checker_;
  std::vector<SourcePtr> stack_;
  std::unordered_map<std::string, bool> done_;
};

std::shared_ptr<const SourceResolver> resolver_of(const RuleLoadOptions& options) {
  if (options.resolver) return options.resolver;
  return std::make_shared<FileResolver>(options.search_paths);
}

}  // namespace

LoadResult<RuleModule> check_rules(std::string_view path, const OpRegistry& ops,
                                   const PredicateRegistry& predicates,
                                   const RuleLoadOptions& options) {
  const auto resolver = resolver_of(options);
  std::string why;
  auto root = resolver->resolve(path, nullptr, why);
  if (!root) {
    LoadResult<RuleModule> out;
    out.diagnostics.push_back(
        make_error(nullptr, {}, fmt::format("cannot load rule file `{}`: {}", path, why)));
    return out;
  }
  Loader loader(ops, predicates, *resolver);
  loader.load(SourceFile::make(std::move(root->name), std::move(root->text), std::move(root->key)));
  return loader.finish();
}

LoadResult<RuleModule> check_rules_text(std::string name, std::string text, const OpRegistry& ops,
                                        const PredicateRegistry& predicates,
                                        const RuleLoadOptions& options) {
  const auto resolver = resolver_of(options);
  Loader loader(ops, predicates, *resolver);
  loader.load(SourceFile::make(std::move(name), std::move(text)));
  return loader.finish();
}

RuleModule load_rules(std::string_view path, const OpRegistry& ops,
                      const PredicateRegistry& predicates, const RuleLoadOptions& options) {
  return check_rules(path, ops, predicates, options).take();
}

RuleModule load_rules_text(std::string name, std::string text, const OpRegistry& ops,
                           const PredicateRegistry& predicates, const RuleLoadOptions& options) {
  return check_rules_text(std::move(name), std::move(text), ops, predicates, options).take();
}

}  // namespace rw::dsl
