// RewriteQuery, RewriteDB and its three kinds.
#include "engine/rewrite/database.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/sequence.hpp"

namespace rw {

namespace {

void add_unique(std::vector<std::string>& set, std::string_view tag) {
  if (std::find(set.begin(), set.end(), tag) == set.end()) set.emplace_back(tag);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

const std::string& item_name(const RewriteDB::Item& item) {
  struct Visitor {
    const std::string& operator()(const NodeRewriterPtr& r) const { return r->name(); }
    const std::string& operator()(const GraphRewriterPtr& r) const { return r->name(); }
    const std::string& operator()(const std::shared_ptr<RewriteDB>& d) const { return d->name(); }
  };
  static const std::string kNull;
  const bool null = std::visit([](const auto& p) { return p == nullptr; }, item);
  return null ? kNull : std::visit(Visitor{}, item);
}

}  // namespace

RewriteQuery::RewriteQuery(std::initializer_list<std::string_view> include) {
  for (std::string_view t : include) add_unique(include_, t);
}

RewriteQuery::RewriteQuery(std::vector<std::string> include, std::vector<std::string> require,
                           std::vector<std::string> exclude) {
  for (const auto& t : include) add_unique(include_, t);
  for (const auto& t : require) add_unique(require_, t);
  for (const auto& t : exclude) add_unique(exclude_, t);
}

RewriteQuery RewriteQuery::including(std::initializer_list<std::string_view> tags) const {
  RewriteQuery q = *this;
  for (std::string_view t : tags) add_unique(q.include_, t);
  return q;
}

RewriteQuery RewriteQuery::including(const std::vector<std::string>& tags) const {
  RewriteQuery q = *this;
  for (const auto& t : tags) add_unique(q.include_, t);
  return q;
}

RewriteQuery RewriteQuery::requiring(std::initializer_list<std::string_view> tags) const {
  RewriteQuery q = *this;
  for (std::string_view t : tags) add_unique(q.require_, t);
  return q;
}

RewriteQuery RewriteQuery::excluding(std::initializer_list<std::string_view> tags) const {
  RewriteQuery q = *this;
  for (std::string_view t : tags) add_unique(q.exclude_, t);
  return q;
}

RewriteQuery RewriteQuery::excluding(const std::vector<std::string>& tags) const {
  RewriteQuery q = *this;
  for (const auto& t : tags) add_unique(q.exclude_, t);
  return q;
}

RewriteQuery RewriteQuery::with_subquery(std::string db_name, RewriteQuery query) const {
  RewriteQuery q = *this;
  q.subqueries_.insert_or_assign(std::move(db_name), std::move(query));
  return q;
}

RewriteQuery RewriteQuery::with_position_cutoff(double position) const {
  if (std::isnan(position)) throw RewriteError("a position cutoff must be a number");
  RewriteQuery q = *this;
  q.position_cutoff_ = position;
  return q;
}

RewriteQuery RewriteQuery::registering(GraphRewriterPtr rewriter, double position) const {
  if (!rewriter) throw RewriteError("registering: null graph rewriter");
  if (std::isnan(position)) throw RewriteError("registering: a position must be a number");
  RewriteQuery q = *this;
  q.extra_.emplace_back(std::move(rewriter), position);
  return q;
}

RewriteQuery RewriteQuery::for_sub(std::string_view db_name) const {
  auto it = subqueries_.find(db_name);
  if (it != subqueries_.end()) return it->second;
  RewriteQuery q = *this;
  q.extra_.clear();
  return q;
}

std::string RewriteQuery::to_string() const {
  std::string out = fmt::format("include({}) require({}) exclude({})", join(include_),
                                join(require_), join(exclude_));
  if (std::isfinite(position_cutoff_)) out += fmt::format(" cutoff({:g})", position_cutoff_);
  for (const auto& [name, q] : subqueries_) out += fmt::format(" {}:[{}]", name, q.to_string());
  return out;
}

bool RewriteDB::Entry::has(std::string_view tag) const {
  return tag == name || std::find(tags.begin(), tags.end(), tag) != tags.end();
}

RewriteDB::RewriteDB(std::string name) : name_(std::move(name)) {
  if (name_.empty()) throw RewriteError("a rewrite database needs a name");
}

const RewriteDB::Entry* RewriteDB::find(std::string_view name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

void RewriteDB::reindex_tags() {
  tag_owner_.clear();
  for (std::size_t i = 0; i < entries_.size(); ++i)
    for (const auto& t : entries_[i].tags) tag_owner_.try_emplace(t, i);
}

void RewriteDB::truncate(std::size_t n) {
  if (n >= entries_.size()) return;
  for (std::size_t i = n; i < entries_.size(); ++i) by_name_.erase(entries_[i].name);
  entries_.resize(n);
  reindex_tags();
}

RewriteDB* RewriteDB::find_db(std::string_view name) const {
  const Entry* e = find(name);
  if (!e) return nullptr;
  const auto* db = std::get_if<std::shared_ptr<RewriteDB>>(&e->item);
  return db ? db->get() : nullptr;
}

void RewriteDB::throw_no_sub(std::string_view name) const {
  const Entry* e = find(name);
  if (!e) throw RewriteError(fmt::format("`{}` has no entry named `{}`", name_, name));
  throw RewriteError(
      fmt::format("entry `{}` of `{}` is not a database of the kind asked for", name, name_));
}

bool RewriteDB::holds_db(const RewriteDB& db) const {
  if (&db == this) return true;
  for (const auto& e : entries_)
    if (const auto* sub = std::get_if<std::shared_ptr<RewriteDB>>(&e.item))
      if ((*sub)->holds_db(db)) return true;
  return false;
}

void RewriteDB::check_tag(const std::string& tag, std::string_view entry_name) const {
  if (tag.empty()) throw RewriteError(fmt::format("`{}`: entry `{}` has an empty tag", name_, entry_name));
  if (tag == entry_name || find(tag))
    throw RewriteError(fmt::format(
        "`{}`: tag `{}` of `{}` collides with the name of an entry; names and tags share one "
        "namespace",
        name_, tag, entry_name));
}

void RewriteDB::check_entry(const Entry&, const EntryOptions&) const {}

void RewriteDB::add(Item item, std::vector<std::string> tags, EntryOptions options) {
  const std::string& name = item_name(item);
  if (name.empty()) throw RewriteError(fmt::format("`{}`: cannot register a null rewriter", name_));
  if (find(name)) throw RewriteError(fmt::format("`{}` already has an entry named `{}`", name_, name));
  if (const auto owner = tag_owner_.find(name); owner != tag_owner_.end())
    throw RewriteError(fmt::format(
        "`{}`: the name `{}` collides with a tag of `{}`; names and tags share one namespace",
        name_, name, entries_[owner->second].name));
  if (const auto* db = std::get_if<std::shared_ptr<RewriteDB>>(&item); db && (*db)->holds_db(*this))
    throw RewriteError(fmt::format("`{}` cannot contain `{}`, which contains it", name_, name));
  if (options.position && std::isnan(*options.position))
    throw RewriteError(fmt::format("`{}`: the position of `{}` must be a number", name_, name));

  Entry entry;
  entry.name = name;
  entry.item = std::move(item);
  for (auto& t : tags) {
    check_tag(t, name);
    add_unique(entry.tags, t);
  }
  if (options.db_name_as_tag) add_unique(entry.tags, name_);
  entry.role = options.role;
  check_entry(entry, options);
  entry.position = options.position.value_or(next_position());
  const std::size_t index = entries_.size();
  for (const auto& t : entry.tags) tag_owner_.try_emplace(t, index);
  by_name_.emplace(entry.name, index);
  entries_.push_back(std::move(entry));
}

void RewriteDB::add_tags(std::string_view name, const std::vector<std::string>& tags) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  if (it == entries_.end())
    throw RewriteError(fmt::format("`{}` has no entry named `{}`", name_, name));
  for (const auto& t : tags) check_tag(t, name);
  const auto index = static_cast<std::size_t>(it - entries_.begin());
  for (const auto& t : tags) {
    add_unique(it->tags, t);
    tag_owner_.try_emplace(t, index);
  }
}

void RewriteDB::remove_tags(std::string_view name, const std::vector<std::string>& tags) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  if (it == entries_.end())
    throw RewriteError(fmt::format("`{}` has no entry named `{}`", name_, name));
  std::erase_if(it->tags, [&](const std::string& t) {
    return std::find(tags.begin(), tags.end(), t) != tags.end();
  });
  reindex_tags();
}

std::vector<const RewriteDB::Entry*> RewriteDB::select(const RewriteQuery& query) const {
  std::vector<const Entry*> out;
  for (const auto& e : entries_) {
    auto has = [&](const std::string& t) { return e.has(t); };
    if (!std::any_of(query.include().begin(), query.include().end(), has)) continue;
    if (!std::all_of(query.require().begin(), query.require().end(), has)) continue;
    if (std::any_of(query.exclude().begin(), query.exclude().end(), has)) continue;
    out.push_back(&e);
  }
  return out;
}

std::vector<std::string> RewriteDB::selected_names(const RewriteQuery& query) const {
  std::vector<std::string> out;
  for (const Entry* e : selection(query)) {
    out.push_back(e->name);
    if (const auto* db = std::get_if<std::shared_ptr<RewriteDB>>(&e->item))
      for (const auto& n : (*db)->selected_names(query.for_sub(e->name)))
        out.push_back(e->name + "/" + n);
  }
  return out;
}

void RegistrationBatch::add(RewriteDB& db, RewriteDB::Item item, std::vector<std::string> tags,
                            EntryOptions options) {
  items_.push_back({&db, std::move(item), std::move(tags), std::move(options)});
}

std::vector<RegistrationBatch::Refusal> RegistrationBatch::commit() {
  std::vector<Item> items = std::move(items_);
  items_.clear();
  // Each database's size before the batch, to undo to.
  std::vector<std::pair<RewriteDB*, std::size_t>> before;
  for (const Item& i : items)
    if (std::none_of(before.begin(), before.end(), [&](const auto& b) { return b.first == i.db; }))
      before.emplace_back(i.db, i.db->entries_.size());
  std::vector<Refusal> refused;
  for (std::size_t k = 0; k < items.size(); ++k) {
    Item& i = items[k];
    try {
      i.db->add(std::move(i.item), std::move(i.tags), std::move(i.options));
    } catch (const RewriteError& e) {
      refused.push_back({k, e.what()});
    }
  }
  if (!refused.empty())
    for (auto& [db, size] : before) db->truncate(size);
  return refused;
}

GraphRewriterPtr RewriteDB::as_graph_rewriter(const Entry& entry, const RewriteQuery& query) const {
  if (const auto* n = std::get_if<NodeRewriterPtr>(&entry.item)) return in2out(entry.name, {*n});
  if (const auto* g = std::get_if<GraphRewriterPtr>(&entry.item)) return *g;
  return std::get<std::shared_ptr<RewriteDB>>(entry.item)->build(query.for_sub(entry.name));
}

// ---------------------------------------------------------------------------

EquilibriumDB::EquilibriumDB(std::string name) : RewriteDB(std::move(name)) {}

EquilibriumDB& EquilibriumDB::with_max_use_ratio(double ratio) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw RewriteError(
        fmt::format("`{}`: max_use_ratio must be a positive number, not {}", name(), ratio));
  max_use_ratio_ = ratio;
  return *this;
}

EquilibriumDB& EquilibriumDB::with_node_limit(std::size_t nodes) {
  node_limit_ = nodes;
  return *this;
}

EquilibriumDB& EquilibriumDB::with_time_limit(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw RewriteError(
        fmt::format("`{}`: the time limit must be zero or positive, not {}", name(), seconds));
  time_limit_ = seconds;
  return *this;
}

EquilibriumDB& EquilibriumDB::with_max_growth(double factor, std::size_t allowance) {
  detail::check_growth_factor(name(), factor);
  max_growth_ = factor;
  growth_allowance_ = allowance;
  return *this;
}

void EquilibriumDB::check_entry(const Entry& entry, const EntryOptions& options) const {
  if (options.position)
    throw RewriteError(fmt::format(
        "`{}` is an equilibrium group: its entries have no position (`{}`)", name(), entry.name));
  if (std::holds_alternative<NodeRewriterPtr>(entry.item) && entry.role != EntryRole::Normal)
    throw RewriteError(fmt::format(
        "`{}`: node rewriter `{}` cannot be a final or cleanup rewriter; only graph rewriters can",
        name(), entry.name));
}

GraphRewriterPtr EquilibriumDB::build(const RewriteQuery& query) const {
  const std::vector<const Entry*> selected = selection(query);
  std::vector<NodeRewriterPtr> node_rewriters;
  for (const Entry* e : selected)
    if (const auto* n = std::get_if<NodeRewriterPtr>(&e->item)) node_rewriters.push_back(*n);
  auto eq = std::make_shared<EquilibriumRewriter>(name(), std::move(node_rewriters));
  eq->with_max_use_ratio(max_use_ratio_)
      .with_node_limit(node_limit_)
      .with_time_limit(time_limit_)
      .with_max_growth(max_growth_, growth_allowance_);
  for (const Entry* e : selected) {
    if (std::holds_alternative<NodeRewriterPtr>(e->item)) continue;
    GraphRewriterPtr g = as_graph_rewriter(*e, query);
    switch (e->role) {
      case EntryRole::Normal: eq->add_global(std::move(g)); break;
      case EntryRole::Final: eq->add_final(std::move(g)); break;
      case EntryRole::Cleanup: eq->add_cleanup(std::move(g)); break;
    }
  }
  return eq;
}

// ---------------------------------------------------------------------------

SequenceDB::SequenceDB(std::string name) : RewriteDB(std::move(name)) {}

void SequenceDB::check_entry(const Entry& entry, const EntryOptions&) const {
  if (entry.role != EntryRole::Normal)
    throw RewriteError(fmt::format(
        "`{}` is a sequence: final and cleanup roles belong to equilibrium groups (`{}`)", name(),
        entry.name));
}

double SequenceDB::next_position() const {
  if (entries().empty()) return 0;
  double last = entries().front().position;
  for (const auto& e : entries()) last = std::max(last, e.position);
  return last + 1;
}

std::vector<const RewriteDB::Entry*> SequenceDB::selection(const RewriteQuery& query) const {
  std::vector<const Entry*> out = select(query);
  std::erase_if(out, [&](const Entry* e) { return !(e->position < query.position_cutoff()); });
  std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) {
    return a->position != b->position ? a->position < b->position : a->name < b->name;
  });
  return out;
}

GraphRewriterPtr SequenceDB::build(const RewriteQuery& query) const {
  struct Placed {
    double position;
    std::string_view name;
    GraphRewriterPtr pass;
  };
  std::vector<Placed> placed;
  for (const Entry* e : selection(query))
    placed.push_back({e->position, e->name, as_graph_rewriter(*e, query)});
  for (const auto& [rewriter, position] : query.extra())
    if (position < query.position_cutoff()) placed.push_back({position, rewriter->name(), rewriter});
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.position != b.position ? a.position < b.position : a.name < b.name;
  });
  std::vector<GraphRewriterPtr> passes;
  passes.reserve(placed.size());
  for (auto& p : placed) passes.push_back(std::move(p.pass));
  return std::make_shared<SequenceRewriter>(name(), std::move(passes));
}

// ---------------------------------------------------------------------------

WalkingDB::WalkingDB(std::string name, WalkOrder order, bool ignore_newtrees)
    : RewriteDB(std::move(name)), order_(order), ignore_newtrees_(ignore_newtrees) {}

void WalkingDB::check_entry(const Entry& entry, const EntryOptions& options) const {
  if (!std::holds_alternative<NodeRewriterPtr>(entry.item))
    throw RewriteError(fmt::format(
        "`{}` is a walking group: it holds node rewriters only, and `{}` is not one", name(),
        entry.name));
  if (options.position || entry.role != EntryRole::Normal)
    throw RewriteError(fmt::format(
        "`{}` is a walking group: its entries have no position or role (`{}`)", name(),
        entry.name));
}

GraphRewriterPtr WalkingDB::build(const RewriteQuery& query) const {
  std::vector<NodeRewriterPtr> rewriters;
  for (const Entry* e : selection(query)) rewriters.push_back(std::get<NodeRewriterPtr>(e->item));
  return std::make_shared<WalkingRewriter>(name(), std::move(rewriters), order_, ignore_newtrees_);
}

}  // namespace rw
