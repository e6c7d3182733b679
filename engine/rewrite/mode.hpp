// Mode: a rewrite database and a query — the pipeline a compiled function
// runs (fast_run, fast_compile, none, …), adjustable per call by tags.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/query.hpp"

namespace rw {

class RewriteDB;

/// The tag of every rewrite that holds only under a value assumption (a rule
/// whose guard calls `nonzero`, `finite`, `positive` …; a C++ rewriter that
/// cancels `x / x`). Rules get it, and `assumes_NAME` for each assumption,
/// when they are registered; `Mode::strict()` leaves them all out.
inline constexpr std::string_view kAssumptionTag = "assumes";

/// Which rewrites to run: a database and a query over it (Aesara's Mode,
/// without the linker, which the compile layer adds). Modes are values;
/// `including`, `excluding`, `requiring` and `registering` return new modes.
class Mode {
 public:
  /// Throws RewriteError when `db` is null.
  Mode(std::shared_ptr<const RewriteDB> db, RewriteQuery query, std::string name = "custom");

  /// Everything tagged `fast_run`.
  static Mode fast_run(std::shared_ptr<const RewriteDB> db);
  /// Everything tagged `fast_compile`.
  static Mode fast_compile(std::shared_ptr<const RewriteDB> db);
  /// No rewrites at all.
  static Mode none(std::shared_ptr<const RewriteDB> db);
  /// Only the merge passes (tag `merge`).
  static Mode merge(std::shared_ptr<const RewriteDB> db);
  /// `fast_run` up to and including stabilize (position cutoff 1.5000001).
  static Mode stabilize(std::shared_ptr<const RewriteDB> db);
  /// The mode of that name: `fast_run`, `fast_compile`, `none`, `merge` or
  /// `stabilize` (any case). Throws RewriteError naming the known modes.
  static Mode named(std::string_view name, std::shared_ptr<const RewriteDB> db);
  /// The names `named` knows.
  static std::vector<std::string> names();

  /// This mode with the query's `including`, `excluding` or `requiring`.
  Mode including(std::initializer_list<std::string_view> tags) const;
  Mode excluding(std::initializer_list<std::string_view> tags) const;
  Mode requiring(std::initializer_list<std::string_view> tags) const;
  Mode including(const std::vector<std::string>& tags) const;
  Mode excluding(const std::vector<std::string>& tags) const;
  /// This mode without the rewrites that hold only under a value assumption
  /// (tag `assumes`): the compiled function then equals the unrewritten
  /// graph wherever IEEE arithmetic defines its result, up to rounding and
  /// to overflow that stabilization removes (`x / x` at 0 stays NaN, `0 * x`
  /// at an infinite x too). Named `<name>+strict`.
  Mode strict() const;
  /// Adds a graph rewriter at a position of the top-level sequence.
  Mode registering(GraphRewriterPtr rewriter, double position) const;

  /// The mode's name, query and database.
  const std::string& name() const { return name_; }
  const RewriteQuery& query() const { return query_; }
  const std::shared_ptr<const RewriteDB>& db() const { return db_; }

  /// Builds the pipeline: one graph rewriter, a snapshot of the database now.
  GraphRewriterPtr rewriter() const;
  /// Builds the pipeline and applies it (requirements included) to `fgraph`.
  PassReport rewrite(FunctionGraph& fgraph, RewriteContext& ctx) const;
  /// `rewrite` with a silent context.
  PassReport rewrite(FunctionGraph& fgraph) const;

 private:
  std::shared_ptr<const RewriteDB> db_;
  RewriteQuery query_;
  std::string name_;
};

}  // namespace rw
