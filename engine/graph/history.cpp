// History's record and its undo.
#include "engine/graph/history.hpp"

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"

namespace rw {

namespace {
bool is_rollback(std::string_view reason) { return reason.starts_with("rollback"); }
}  // namespace

void History::on_attach(FunctionGraph& fgraph) {
  fgraph_ = &fgraph;
  changes_.clear();
}

void History::on_detach(FunctionGraph&) {
  fgraph_ = nullptr;
  changes_.clear();
}

void History::on_change_input(FunctionGraph&, const Client& client, const Var& old_var,
                              const Var& new_var, std::string_view reason) {
  if (reverting_) return;
  if (is_rollback(reason) && !changes_.empty()) {
    // The graph undoes a refused change, newest first: take it off the record.
    const Change& last = changes_.back();
    if (!last.old_op && last.client == client && last.new_var == old_var &&
        last.old_var == new_var) {
      changes_.pop_back();
      return;
    }
  }
  changes_.push_back({client, old_var, new_var, {}, nullptr, nullptr});
}

void History::on_change_op(FunctionGraph&, Apply& node, const std::shared_ptr<const Op>& old_op,
                           std::string_view reason) {
  if (reverting_) return;
  if (is_rollback(reason) && !changes_.empty()) {
    const Change& last = changes_.back();
    if (last.old_op && last.node_ref.get() == &node && last.new_op == old_op) {
      changes_.pop_back();
      return;
    }
  }
  changes_.push_back({Client{&node, 0}, {}, {}, ApplyRef(&node), old_op, node.op_ptr()});
}

void History::revert(FunctionGraph& fgraph, Checkpoint checkpoint) {
  if (fgraph_ != &fgraph)
    throw Error("History::revert: this History is not attached to the graph it was given");
  if (checkpoint > changes_.size())
    throw Error(fmt::format("History::revert: checkpoint {} is past the end of the record ({} "
                            "changes)",
                            checkpoint, changes_.size()));
  struct Flag {
    bool& on;
    explicit Flag(bool& b) : on(b) { on = true; }
    ~Flag() { on = false; }
  } flag(reverting_);
  while (changes_.size() > checkpoint) {
    const Change& c = changes_.back();
    if (c.old_op) fgraph.change_op(*c.node_ref, c.old_op, "revert");
    else fgraph.change_input(c.client, c.old_var, "revert");
    changes_.pop_back();
  }
}

}  // namespace rw
