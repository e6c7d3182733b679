// Mode.
#include "engine/rewrite/mode.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/errors.hpp"

namespace rw {

Mode::Mode(std::shared_ptr<const RewriteDB> db, RewriteQuery query, std::string name)
    : db_(std::move(db)), query_(std::move(query)), name_(std::move(name)) {
  if (!db_) throw RewriteError(fmt::format("mode `{}` needs a rewrite database", name_));
}

Mode Mode::fast_run(std::shared_ptr<const RewriteDB> db) {
  return Mode(std::move(db), RewriteQuery{"fast_run"}, "fast_run");
}

Mode Mode::fast_compile(std::shared_ptr<const RewriteDB> db) {
  return Mode(std::move(db), RewriteQuery{"fast_compile"}, "fast_compile");
}

Mode Mode::none(std::shared_ptr<const RewriteDB> db) {
  return Mode(std::move(db), RewriteQuery{}, "none");
}

Mode Mode::merge(std::shared_ptr<const RewriteDB> db) {
  return Mode(std::move(db), RewriteQuery{"merge"}, "merge");
}

Mode Mode::stabilize(std::shared_ptr<const RewriteDB> db) {
  return Mode(std::move(db), RewriteQuery{"fast_run"}.with_position_cutoff(1.5000001), "stabilize");
}

std::vector<std::string> Mode::names() {
  return {"fast_run", "fast_compile", "none", "merge", "stabilize"};
}

Mode Mode::named(std::string_view name, std::shared_ptr<const RewriteDB> db) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "fast_run") return fast_run(std::move(db));
  if (lower == "fast_compile") return fast_compile(std::move(db));
  if (lower == "none") return none(std::move(db));
  if (lower == "merge") return merge(std::move(db));
  if (lower == "stabilize") return stabilize(std::move(db));
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "`" : ", `") + n + "`";
  throw RewriteError(fmt::format("unknown mode `{}`; the modes are {}", name, known));
}

Mode Mode::including(std::initializer_list<std::string_view> tags) const {
  return Mode(db_, query_.including(tags), name_);
}
Mode Mode::excluding(std::initializer_list<std::string_view> tags) const {
  return Mode(db_, query_.excluding(tags), name_);
}
Mode Mode::requiring(std::initializer_list<std::string_view> tags) const {
  return Mode(db_, query_.requiring(tags), name_);
}
Mode Mode::including(const std::vector<std::string>& tags) const {
  return Mode(db_, query_.including(tags), name_);
}
Mode Mode::excluding(const std::vector<std::string>& tags) const {
  return Mode(db_, query_.excluding(tags), name_);
}
Mode Mode::strict() const {
  return Mode(db_, query_.excluding({kAssumptionTag}), name_ + "+strict");
}
Mode Mode::registering(GraphRewriterPtr rewriter, double position) const {
  return Mode(db_, query_.registering(std::move(rewriter), position), name_);
}

GraphRewriterPtr Mode::rewriter() const { return db_->build(query_); }

PassReport Mode::rewrite(FunctionGraph& fgraph, RewriteContext& ctx) const {
  return rewriter()->rewrite(fgraph, ctx);
}

PassReport Mode::rewrite(FunctionGraph& fgraph) const {
  RewriteContext ctx;
  return rewrite(fgraph, ctx);
}

}  // namespace rw
