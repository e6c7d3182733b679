// History (checkpoint and revert) and NodeFinder (nodes by Op), the two
// FunctionGraph features PyTensor's rewriters lean on.
#include <catch2/catch.hpp>

#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/history.hpp"
#include "engine/graph/node_finder.hpp"
#include "engine/graph/printing.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

/// Refuses every change while `armed`.
class Veto final : public Feature {
 public:
  bool armed = false;
  void validate(const FunctionGraph&) override {
    if (armed) throw InconsistencyError("veto says no");
  }
};

}  // namespace

TEST_CASE("History reverts the changes made since a checkpoint, pruned subgraphs included",
          "[graph][history]") {
  const Var x = fvec("x");
  const Var y = fvec("y");
  const Var e = exp(x);
  const Var out = add(log(e), mul(e, y));
  FunctionGraph fg({x, y}, {out});
  auto history = std::make_shared<History>();
  fg.attach_feature(history);
  const std::string original = debugprint(fg);

  // log(exp(x)) → x prunes log and, with the next change, exp.
  const Var log_e = fg.outputs()[0]->owner()->input(0);
  const Var fg_e = log_e->owner()->input(0);
  fg.replace(log_e, fg.inputs()[0], "log_exp");
  const History::Checkpoint after_first = history->checkpoint();
  CHECK(after_first == 1);
  const std::string middle = debugprint(fg);
  fg.replace(fg_e, neg(fg.inputs()[0]), "exp_is_neg");
  CHECK(history->size() == 2);
  CHECK(debugprint(fg).find("exp") == std::string::npos);

  history->revert(fg, after_first);
  CHECK(debugprint(fg) == middle);
  CHECK(history->size() == 1);
  history->revert(fg, 0);
  CHECK(debugprint(fg) == original);
  CHECK(history->size() == 0);
  fg.check_integrity();
}

TEST_CASE("History leaves refused changes off its record and reverts Op changes",
          "[graph][history]") {
  const Var x = fvec("x");
  const Var out = exp(neg(x));
  FunctionGraph fg({x}, {out});
  auto history = std::make_shared<History>();
  auto veto = std::make_shared<Veto>();
  fg.attach_feature(history);
  fg.attach_feature(veto);
  const std::string original = debugprint(fg);

  veto->armed = true;
  REQUIRE_THROWS_AS(fg.replace(fg.outputs()[0], fg.inputs()[0], "refused"), ReplacementError);
  CHECK(history->size() == 0);
  veto->armed = false;

  Apply& e = *fg.outputs()[0]->owner();
  fg.change_op(e, toy("log", 1), "exp_to_log");
  CHECK(history->size() == 1);
  CHECK(debugprint(fg) != original);
  history->revert(fg, 0);
  CHECK(debugprint(fg) == original);

  // A refused undo throws; the change stays on the record.
  fg.replace(fg.outputs()[0], neg(fg.inputs()[0]), "to_neg");
  veto->armed = true;
  CHECK_THROWS_AS(history->revert(fg, 0), ReplacementError);
  CHECK(history->size() == 1);
  veto->armed = false;
  history->revert(fg, 0);
  CHECK(debugprint(fg) == original);
}

TEST_CASE("History refuses a checkpoint past its record and a graph it is not attached to",
          "[graph][history]") {
  const Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  FunctionGraph other({x}, {neg(x)});
  auto history = std::make_shared<History>();
  fg.attach_feature(history);
  CHECK_THROWS_WITH(history->revert(fg, 3),
                    "History::revert: checkpoint 3 is past the end of the record (0 changes)");
  CHECK_THROWS_WITH(history->revert(other, 0),
                    Catch::Contains("not attached to the graph it was given"));
}

TEST_CASE("NodeFinder lists the nodes of an Op in topological order as the graph changes",
          "[graph][node_finder]") {
  const Var x = fvec("x");
  const Var y = fvec("y");
  const Var out = add(exp(add(x, y)), exp(x));
  FunctionGraph fg({x, y}, {out});
  auto finder = std::make_shared<NodeFinder>();
  fg.attach_feature(finder);
  CHECK(finder->count("exp") == 2);
  CHECK(finder->count("add") == 2);
  CHECK(finder->count("neg") == 0);
  const std::vector<Apply*> adds = finder->nodes_of("add");
  REQUIRE(adds.size() == 2);
  CHECK(fg.order_of(*adds[0]) < fg.order_of(*adds[1]));
  CHECK(adds[1] == fg.outputs()[0]->owner());

  // exp(x) → neg(x): one exp pruned, one neg imported.
  const Var exp_x = fg.outputs()[0]->owner()->input(1);
  fg.replace(exp_x, neg(fg.inputs()[0]));
  CHECK(finder->count("exp") == 1);
  CHECK(finder->nodes_of("neg").size() == 1);
  // An Op change moves the node to its new Op.
  fg.change_op(*finder->nodes_of("exp")[0], toy("log", 1));
  CHECK(finder->count("exp") == 0);
  CHECK(finder->count("log") == 1);
  fg.detach_feature(*finder);
  CHECK(finder->nodes_of("log").empty());
}
