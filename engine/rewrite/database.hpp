// The rewrite database: rewriters registered under a name and tags, grouped
// into equilibrium groups, position-ordered sequences and walking groups,
// nested; queries that select from it (Aesara's RewriteDatabase, EquilibriumDB,
// SequenceDB, TopoDB and RewriteDatabaseQuery).
#pragma once

#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "engine/rewrite/query.hpp"
#include "engine/rewrite/walking.hpp"

namespace rw {

class RewriteDB;
class RegistrationBatch;

/// How a graph rewriter takes part in an equilibrium group.
enum class EntryRole : unsigned char {
  Normal,   ///< node rewriters; graph rewriters run at the start of each round
  Final,    ///< a graph rewriter run at the end of each round
  Cleanup,  ///< a graph rewriter run after every change (e.g. merge)
};

/// Options of one registration.
struct EntryOptions {
  /// Sequences only: where the entry runs (default: after the last entry).
  std::optional<double> position;
  /// Equilibrium groups only.
  EntryRole role = EntryRole::Normal;
  /// Whether the database's own name becomes a tag of the entry (as in
  /// Aesara), so that `including("canonicalize")` selects its whole content.
  bool db_name_as_tag = true;
};

/// A named collection of rewriters and sub-databases. Every entry is registered
/// under its own name (the rewriter's name), with tags; names and tags share
/// one namespace, so a tag may not equal any name. Registering is refused with
/// RewriteError, leaving the database as it was, when the name is taken or a
/// tag collides. Built pipelines do not change when the database does later.
/// Names and tags are indexed: registering costs the same at the ten
/// thousandth entry as at the first. To register several entries all at once
/// or not at all (a rule file), use a RegistrationBatch.
class RewriteDB {
 public:
  /// What can be registered.
  using Item = std::variant<NodeRewriterPtr, GraphRewriterPtr, std::shared_ptr<RewriteDB>>;
  /// One registration.
  struct Entry {
    /// The entry's name (its rewriter's or database's name).
    std::string name;
    /// What is registered.
    Item item;
    /// Its tags (the database's name included, unless turned off).
    std::vector<std::string> tags;
    /// Sequences: where it runs.
    double position = 0;
    /// Equilibrium groups: how a graph rewriter takes part.
    EntryRole role = EntryRole::Normal;
    /// True when `tag` is the entry's name or one of its tags.
    bool has(std::string_view tag) const;
  };

  virtual ~RewriteDB() = default;
  RewriteDB(const RewriteDB&) = delete;
  RewriteDB& operator=(const RewriteDB&) = delete;

  /// The database's name, a tag of its entries.
  const std::string& name() const { return name_; }
  /// "equilibrium", "sequence" or "walking".
  virtual std::string_view kind() const = 0;

  /// Registers a node rewriter, graph rewriter or database under its name.
  void add(Item item, std::vector<std::string> tags = {}, EntryOptions options = {});
  /// Adds or removes tags of the entry `name`.
  void add_tags(std::string_view name, const std::vector<std::string>& tags);
  /// Throws RewriteError when there is no entry `name`; unknown tags are ignored.
  void remove_tags(std::string_view name, const std::vector<std::string>& tags);

  /// The entry named `name`, or nullptr.
  const Entry* find(std::string_view name) const;
  /// Whether an entry is named `name`.
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  /// The sub-database named `name`; throws RewriteError when there is none of
  /// that kind.
  template <class DB> DB& sub(std::string_view name) const {
    DB* db = dynamic_cast<DB*>(find_db(name));
    if (!db) throw_no_sub(name);
    return *db;
  }
  /// Every entry, in registration order.
  const std::vector<Entry>& entries() const { return entries_; }

  /// The entries of this level selected by `query` (include/require/exclude),
  /// in registration order.
  std::vector<const Entry*> select(const RewriteQuery& query) const;
  /// The names selected by `query` at every level, depth first: `merge1`,
  /// `canonicalize/constant_folding`, … (for tools and tests).
  std::vector<std::string> selected_names(const RewriteQuery& query) const;
  /// The pipeline for `query`: a graph rewriter of this database's kind over
  /// the selected entries, sub-databases built with their queries.
  virtual GraphRewriterPtr build(const RewriteQuery& query) const = 0;

 protected:
  explicit RewriteDB(std::string name);
  /// Refuses what this kind of database cannot hold.
  virtual void check_entry(const Entry& entry, const EntryOptions& options) const;
  /// The entry as a graph rewriter (a node rewriter is walked in to out; a
  /// database is built with its query).
  GraphRewriterPtr as_graph_rewriter(const Entry& entry, const RewriteQuery& query) const;
  /// The position given to an entry registered without one.
  virtual double next_position() const { return 0; }
  /// The entries `query` selects, in the order the built pipeline runs them.
  virtual std::vector<const Entry*> selection(const RewriteQuery& query) const {
    return select(query);
  }

 private:
  friend class RegistrationBatch;
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>>;

  RewriteDB* find_db(std::string_view name) const;
  bool holds_db(const RewriteDB& db) const;
  void check_tag(const std::string& tag, std::string_view entry_name) const;
  [[noreturn]] void throw_no_sub(std::string_view name) const;
  // Drops the entries registered after the first `n` (undoing a batch).
  void truncate(std::size_t n);
  void reindex_tags();
  std::string name_;
  std::vector<Entry> entries_;
  Index by_name_;    // entry name -> its index
  Index tag_owner_;  // tag -> the index of the first entry that has it
};

/// Registrations in one or several databases made all together or not at
/// all — what loading a rule file needs: every rule of the file, or none.
class RegistrationBatch {
 public:
  /// One refused registration: its index in the batch, and why.
  struct Refusal {
    std::size_t index;
    std::string message;
  };

  /// Queues a registration in `db`, which must outlive the batch; nothing
  /// changes until `commit`.
  void add(RewriteDB& db, RewriteDB::Item item, std::vector<std::string> tags = {},
           EntryOptions options = {});
  /// Number of queued registrations.
  std::size_t size() const { return items_.size(); }

  /// Makes the registrations in order. When any is refused, the ones made
  /// are undone — every database is left exactly as it was — and every
  /// refusal is returned (each judged against the databases with the
  /// registrations before it); an empty result means all were made. The
  /// queue is emptied either way.
  std::vector<Refusal> commit();

 private:
  struct Item {
    RewriteDB* db;
    RewriteDB::Item item;
    std::vector<std::string> tags;
    EntryOptions options;
  };
  std::vector<Item> items_;
};

/// Rewriters applied together to a fixed point: builds an EquilibriumRewriter.
class EquilibriumDB final : public RewriteDB {
 public:
  /// An empty group; throws RewriteError when `name` is empty.
  explicit EquilibriumDB(std::string name);
  std::string_view kind() const override { return "equilibrium"; }
  /// Limits given to the built EquilibriumRewriter (see it for meaning).
  EquilibriumDB& with_max_use_ratio(double ratio);
  EquilibriumDB& with_node_limit(std::size_t nodes);
  EquilibriumDB& with_time_limit(double seconds);
  EquilibriumDB& with_max_growth(double factor, std::size_t allowance = kDefaultGrowthAllowance);
  /// An EquilibriumRewriter named as the group, with its limits.
  GraphRewriterPtr build(const RewriteQuery& query) const override;

 protected:
  void check_entry(const Entry& entry, const EntryOptions& options) const override;

 private:
  double max_use_ratio_ = 8.0;
  std::size_t node_limit_ = 0;
  double time_limit_ = 0;
  double max_growth_ = kDefaultMaxGrowth;
  std::size_t growth_allowance_ = kDefaultGrowthAllowance;
};

/// Passes run one after another in order of position (then name), whatever
/// the query selects: builds a SequenceRewriter.
class SequenceDB final : public RewriteDB {
 public:
  /// An empty sequence; throws RewriteError when `name` is empty.
  explicit SequenceDB(std::string name);
  std::string_view kind() const override { return "sequence"; }
  /// A SequenceRewriter named as the sequence.
  GraphRewriterPtr build(const RewriteQuery& query) const override;

 protected:
  void check_entry(const Entry& entry, const EntryOptions& options) const override;
  double next_position() const override;
  std::vector<const Entry*> selection(const RewriteQuery& query) const override;
};

/// Node rewriters applied in one walk over the graph (Aesara's TopoDB over a
/// LocalGroupDB): builds a WalkingRewriter.
class WalkingDB final : public RewriteDB {
 public:
  /// An empty group walked in `order` (see WalkingRewriter).
  explicit WalkingDB(std::string name, WalkOrder order = WalkOrder::InToOut,
                     bool ignore_newtrees = false);
  std::string_view kind() const override { return "walking"; }
  /// A WalkingRewriter named as the group.
  GraphRewriterPtr build(const RewriteQuery& query) const override;

 protected:
  void check_entry(const Entry& entry, const EntryOptions& options) const override;

 private:
  WalkOrder order_;
  bool ignore_newtrees_;
};

}  // namespace rw
