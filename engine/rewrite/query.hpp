// RewriteQuery: which rewriters a mode or a pass takes from a rewrite
// database, by tags, names and positions.
#pragma once

#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/rewrite/graph_rewriter.hpp"

namespace rw {

/// Which rewriters to take from a database (Aesara's RewriteDatabaseQuery).
/// A name counts as a tag of its entry. At each level of the database an
/// entry is selected when it has *any* tag of `include`, *all* of `require`
/// and *none* of `exclude`; a selected sub-database is queried in turn with
/// its subquery, if one is given for its name, else with this query.
/// Sequences keep only entries placed before `position_cutoff`.
///
/// Queries are values: `including`, `requiring`, `excluding`, … return a new
/// query.
class RewriteQuery {
 public:
  /// Selects nothing.
  RewriteQuery() = default;
  /// Selects entries with any of these tags.
  RewriteQuery(std::initializer_list<std::string_view> include);
  /// Selects entries with any of `include`, all of `require`, none of `exclude`.
  RewriteQuery(std::vector<std::string> include, std::vector<std::string> require,
               std::vector<std::string> exclude);

  /// This query, also selecting entries with any of `tags`.
  RewriteQuery including(std::initializer_list<std::string_view> tags) const;
  /// This query, keeping only entries with all of `tags` too.
  RewriteQuery requiring(std::initializer_list<std::string_view> tags) const;
  /// This query, dropping entries with any of `tags`.
  RewriteQuery excluding(std::initializer_list<std::string_view> tags) const;
  /// `including` and `excluding` with tags known at run time.
  RewriteQuery including(const std::vector<std::string>& tags) const;
  RewriteQuery excluding(const std::vector<std::string>& tags) const;
  /// Queries the sub-database named `db_name` with `query` instead of this one.
  RewriteQuery with_subquery(std::string db_name, RewriteQuery query) const;
  /// Only entries of sequences placed before `position`.
  RewriteQuery with_position_cutoff(double position) const;
  /// Adds a graph rewriter at `position` to the top-level sequence built from
  /// this query (Aesara's extra_rewrites); sub-queries do not inherit it.
  RewriteQuery registering(GraphRewriterPtr rewriter, double position) const;

  /// The tags of the query and its position cutoff.
  const std::vector<std::string>& include() const { return include_; }
  const std::vector<std::string>& require() const { return require_; }
  const std::vector<std::string>& exclude() const { return exclude_; }
  double position_cutoff() const { return position_cutoff_; }
  /// The query for the sub-database named `db_name`.
  RewriteQuery for_sub(std::string_view db_name) const;
  /// The passes added by `registering`, with their positions.
  const std::vector<std::pair<GraphRewriterPtr, double>>& extra() const { return extra_; }
  /// `include(fast_run) require() exclude(inplace)`.
  std::string to_string() const;

 private:
  std::vector<std::string> include_;
  std::vector<std::string> require_;
  std::vector<std::string> exclude_;
  std::map<std::string, RewriteQuery, std::less<>> subqueries_;
  double position_cutoff_ = std::numeric_limits<double>::infinity();
  std::vector<std::pair<GraphRewriterPtr, double>> extra_;
};

}  // namespace rw
