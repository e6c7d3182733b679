// FunctionGraph: import, clients, replacement, pruning, features, refusals,
// clone, integrity.
#include <catch2/catch.hpp>

#include <random>

#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

/// Records every callback as a line of text.
class Recorder final : public Feature {
 public:
  std::vector<std::string> events;
  void on_attach(FunctionGraph&) override { events.push_back("attach"); }
  void on_detach(FunctionGraph&) override { events.push_back("detach"); }
  void on_import(FunctionGraph&, Apply& node, std::string_view reason) override {
    events.push_back("import " + node.op().to_string() + " (" + std::string(reason) + ")");
  }
  void on_prune(FunctionGraph&, Apply& node, std::string_view reason) override {
    events.push_back("prune " + node.op().to_string() + " (" + std::string(reason) + ")");
  }
  void on_change_input(FunctionGraph&, const Client& c, const Var& old_var, const Var& new_var,
                       std::string_view reason) override {
    events.push_back("change " + (c.node ? c.node->op().to_string() : std::string("output")) +
                     "[" + std::to_string(c.slot) + "] " + describe(*old_var) + " -> " +
                     describe(*new_var) + " (" + std::string(reason) + ")");
  }
  void on_change_op(FunctionGraph&, Apply& node, const OpPtr& old_op,
                    std::string_view reason) override {
    events.push_back("op " + old_op->to_string() + " -> " + node.op().to_string() + " (" +
                     std::string(reason) + ")");
  }
};

/// Refuses every change while `armed`.
class Veto final : public Feature {
 public:
  bool armed = false;
  void validate(const FunctionGraph&) override {
    if (armed) throw InconsistencyError("veto says no");
  }
};

/// Throws from on_change_op while `armed`.
class LoudOnChange final : public Feature {
 public:
  bool armed = false;
  void on_change_op(FunctionGraph&, Apply&, const OpPtr&, std::string_view reason) override {
    if (armed && reason.substr(0, 8) != "rollback") throw InconsistencyError("loud says no");
  }
};

/// `exp` with an extra constant input: an Op whose make_node takes more
/// inputs than it was given.
class ExpPlusInput final : public Op {
 public:
  std::string_view name() const override { return "exp_plus"; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const Var both[] = {inputs[0], fconst(0)};
    const TypePtr types[] = {inputs[0]->type()};
    return Apply::create(ptr(), both, types);
  }
};

/// Structure of a graph as text, for before/after comparison.
std::string shape_of(const FunctionGraph& fg) { return debugprint(fg); }

}  // namespace

TEST_CASE("a FunctionGraph clones its input graph by default", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var z = mul(exp(x), y);
  FunctionGraph fg({x, y}, {z});
  REQUIRE(fg.num_nodes() == 2);
  REQUIRE(fg.inputs()[0] != x);
  REQUIRE(fg.inputs()[0]->name() == "x");
  REQUIRE_FALSE(fg.contains(*z->owner()));
  REQUIRE_FALSE(z->owner()->in_fgraph());
  fg.check_integrity();

  FunctionGraph in_place({x, y}, {z}, /*clone=*/false);
  REQUIRE(in_place.outputs()[0] == z);
  REQUIRE(in_place.contains(*z->owner()));
  REQUIRE(z->owner()->in_fgraph());
}

TEST_CASE("a node belongs to one FunctionGraph at a time", "[graph]") {
  Var x = fvec("x");
  Var z = exp(x);
  {
    FunctionGraph a({x}, {z}, false);
    REQUIRE_THROWS_WITH(FunctionGraph({x}, {z}, false),
                        Catch::Contains("belongs to another FunctionGraph"));
    a.check_integrity();
  }
  REQUIRE_FALSE(z->owner()->in_fgraph());
  FunctionGraph b({x}, {z}, false);  // free again once `a` is gone
  b.check_integrity();
}

TEST_CASE("graph construction refuses bad inputs with a reason", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var z = add(x, y);
  REQUIRE_THROWS_AS(FunctionGraph({x}, {z}), MissingInputError);
  REQUIRE_THROWS_WITH(FunctionGraph({x}, {z}), Catch::Contains("`y` is needed"));
  REQUIRE_THROWS_WITH(FunctionGraph({x, x}, {exp(x)}), Catch::Contains("given twice"));
  REQUIRE_THROWS_WITH(FunctionGraph({fconst(1)}, {x}), Catch::Contains("is a constant"));
  Var e = exp(x);
  REQUIRE_THROWS_WITH(FunctionGraph({e}, {log(e)}, false), Catch::Contains("computed by a node"));
  // With cloning, an intermediate variable may serve as an input: the copy stops there.
  FunctionGraph fg({e}, {log(e)});
  REQUIRE(fg.num_nodes() == 1);
  fg.check_integrity();
}

TEST_CASE("clients list every use with its slot, outputs included", "[graph]") {
  Var x = fvec("x");
  Var e = exp(x);
  Var z = add(e, e);
  Var w = mul(z, e);
  FunctionGraph fg({x}, {w, e}, false);
  const ClientList ce = fg.clients(*e);
  REQUIRE(ce.size() == 4);
  REQUIRE(std::count(ce.begin(), ce.end(), Client{z->owner(), 0}) == 1);
  REQUIRE(std::count(ce.begin(), ce.end(), Client{z->owner(), 1}) == 1);
  REQUIRE(std::count(ce.begin(), ce.end(), Client{w->owner(), 1}) == 1);
  REQUIRE(std::count(ce.begin(), ce.end(), Client{nullptr, 1}) == 1);
  REQUIRE(fg.num_clients(*x) == 1);
  REQUIRE(fg.num_clients(*w) == 1);
  REQUIRE(fg.clients(*w)[0].is_output());
  REQUIRE(fg.clients(*fvec("stranger")).empty());
}

TEST_CASE("replace updates clients and prunes what became unused", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var d = div(mul(x, y), y);  // (x*y)/y
  Var out = exp(d);
  FunctionGraph fg({x, y}, {out}, false);
  auto rec = std::make_shared<Recorder>();
  fg.attach_feature(rec);
  REQUIRE(fg.num_nodes() == 3);

  fg.replace(d, x, "div_cancel");
  REQUIRE(fg.num_nodes() == 1);
  REQUIRE(out->owner()->input(0) == x);
  REQUIRE(fg.num_clients(*x) == 1);
  REQUIRE(fg.num_clients(*y) == 0);
  REQUIRE_FALSE(fg.contains(*d));
  REQUIRE(fg.contains(*y));  // inputs are never pruned
  fg.check_integrity();
  REQUIRE(rec->events == std::vector<std::string>{
                             "attach",
                             "prune div (div_cancel)",
                             "prune mul (div_cancel)",
                             "change exp[0] `x * y / y` -> `x` (div_cancel)",
                         });
}

TEST_CASE("replace imports the new subgraph, inputs before users", "[graph]") {
  Var x = fvec("x");
  Var e = exp(x);
  Var out = add(e, x);
  FunctionGraph fg({x}, {out}, false);
  auto rec = std::make_shared<Recorder>();
  fg.attach_feature(rec);
  Var repl = neg(log(x));
  fg.replace(e, repl, "r");
  REQUIRE(rec->events == std::vector<std::string>{
                             "attach",
                             "import log (r)",
                             "import neg (r)",
                             "prune exp (r)",
                             "change add[0] `exp(x)` -> `-log(x)` (r)",
                         });
  fg.check_integrity();
  REQUIRE(fg.num_nodes() == 3);
  fg.detach_feature(*rec);
  REQUIRE(rec->events.back() == "detach");
}

TEST_CASE("replace may use the replaced variable in its replacement", "[graph]") {
  Var x = fvec("x");
  Var e = exp(x);
  Var out = log(e);
  FunctionGraph fg({x}, {out}, false);
  Var wrapped = neg(e);  // e → -e: the new node is a client of e, the old client moves
  fg.replace(e, wrapped);
  REQUIRE(out->owner()->input(0) == wrapped);
  REQUIRE(wrapped->owner()->input(0) == e);
  REQUIRE(fg.num_clients(*e) == 1);
  fg.check_integrity();
  REQUIRE(to_infix(fg.outputs()[0]) == "log(-exp(x))");
}

TEST_CASE("replacing an output changes the graph's outputs", "[graph]") {
  Var x = fvec("x");
  Var e = exp(x);
  FunctionGraph fg({x}, {e, e}, false);
  fg.replace(e, x);
  REQUIRE(fg.outputs()[0] == x);
  REQUIRE(fg.outputs()[1] == x);
  REQUIRE(fg.num_nodes() == 0);
  fg.check_integrity();
}

TEST_CASE("multi-output nodes are pruned only when no output is used", "[graph]") {
  Var x = fvec("x");
  auto two = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{x});
  Var a = two->output(0), b = two->output(1);
  Var out = add(a, b);
  FunctionGraph fg({x}, {out}, false);
  REQUIRE(fg.num_nodes() == 2);
  fg.replace(a, x);
  REQUIRE(fg.num_nodes() == 2);  // b is still used
  REQUIRE(fg.num_clients(*a) == 0);
  REQUIRE(fg.num_clients(*b) == 1);
  fg.replace(b, x);
  REQUIRE(fg.num_nodes() == 1);
  fg.check_integrity();
}

namespace {
/// exp(x) * y + log(exp(x)): `e` = exp(x) has two uses, `m` one.
struct SharedExp {
  Var x, y, e, m, out;
};
SharedExp shared_exp() {
  SharedExp g;
  g.x = fvec("x");
  g.y = fvec("y");
  g.e = exp(g.x);
  g.m = mul(g.e, g.y);
  g.out = add(g.m, log(g.e));
  return g;
}
}  // namespace

TEST_CASE("refused replacements leave the graph exactly as it was", "[graph]") {
  auto [x, y, e, m, out] = shared_exp();
  FunctionGraph fg({x, y}, {out}, false);
  auto veto = std::make_shared<Veto>();
  fg.attach_feature(veto);
  const std::string before = shape_of(fg);
  auto [copy, map] = fg.clone();
  const std::string copy_before = shape_of(copy);

  SECTION("type mismatch") {
    Var s = ftensor("s", {});  // 0-d, not a vector
    REQUIRE_THROWS_AS(fg.replace(e, s), ReplacementError);
    REQUIRE_THROWS_WITH(fg.replace(e, s), Catch::Contains("type mismatch") &&
                                              Catch::Contains("f64[?]") &&
                                              Catch::Contains("f64[]"));
  }
  SECTION("a cycle") {
    REQUIRE_THROWS_WITH(fg.replace(e, neg(m)), Catch::Contains("cycle"));
    REQUIRE_THROWS_WITH(fg.replace(x, out), Catch::Contains("cycle"));
  }
  SECTION("a missing input") {
    REQUIRE_THROWS_WITH(fg.replace(e, exp(fvec("z"))), Catch::Contains("`z` is needed"));
  }
  SECTION("a variable not in the graph") {
    REQUIRE_THROWS_WITH(fg.replace(exp(y), x), Catch::Contains("is not in the graph"));
  }
  SECTION("a feature vetoes") {
    auto rec = std::make_shared<Recorder>();
    fg.attach_feature(rec);
    veto->armed = true;
    REQUIRE_THROWS_WITH(fg.replace(e, neg(x), "try"), Catch::Contains("veto says no") &&
                                                           Catch::Contains("(try)"));
    // Listeners heard the change and its undo.
    REQUIRE(rec->events.back().find("rollback: try") != std::string::npos);
    veto->armed = false;
  }
  SECTION("one bad pair of several undoes the good ones") {
    const std::pair<Var, Var> pairs[] = {{e, neg(x)}, {m, ftensor("s", {})}};
    REQUIRE_THROWS_AS(fg.replace_all(pairs), ReplacementError);
  }
  REQUIRE(shape_of(fg) == before);
  REQUIRE(shape_of(fg) == copy_before);
  fg.check_integrity();
  REQUIRE(fg.num_nodes() == copy.num_nodes());
  // And the graph still accepts good changes.
  fg.replace(e, neg(x));
  fg.check_integrity();
  REQUIRE(shape_of(copy) == copy_before);
}

TEST_CASE("a more specific type may replace a more general one, not the reverse", "[graph]") {
  Var x = ftensor("x", {kUnknownDim});
  Var k = ftensor("k", {3});
  Var e = exp(x);
  FunctionGraph fg({x, k}, {neg(e)}, false);
  fg.replace(e, exp(k));  // f64[3] for f64[?]
  fg.check_integrity();
  Var e3 = fg.outputs()[0]->owner()->input(0);
  REQUIRE_THROWS_AS(fg.replace(e3, exp(x)), ReplacementError);
}

TEST_CASE("clone is independent of the original", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var e = exp(x);
  FunctionGraph fg({x, y}, {add(e, y)}, false);
  auto [copy, map] = fg.clone();
  copy.check_integrity();
  REQUIRE(shape_of(copy) == shape_of(fg));
  REQUIRE(map[x] != x);
  REQUIRE(map[e]->owner() == map.nodes.at(e->owner()));
  copy.replace(map[e], map[x]);
  REQUIRE(copy.num_nodes() == 1);
  REQUIRE(fg.num_nodes() == 2);
  fg.check_integrity();
  REQUIRE(to_infix(fg.outputs()[0]) == "exp(x) + y");
  REQUIRE(to_infix(copy.outputs()[0]) == "x + y");
}

TEST_CASE("toposort puts every node after its inputs", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var a = exp(x), b = log(y), c = add(a, b), d = mul(c, a), e = sub(d, b);
  FunctionGraph fg({x, y}, {e}, false);
  const auto order = fg.toposort();
  REQUIRE(order.size() == 5);
  std::unordered_map<const Apply*, std::size_t> pos;
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  for (Apply* n : order)
    for (const Var& in : n->inputs())
      if (in->owner()) REQUIRE(pos.at(in->owner()) < pos.at(n));
  for (Apply* n : order)
    for (const Var& in : n->inputs())
      if (in->owner()) REQUIRE(fg.order_of(*in->owner()) < fg.order_of(*n));
}

TEST_CASE("check_integrity finds a graph corrupted on purpose", "[graph]") {
  using detail::Corruption;
  auto build = [] {
    Var x = fvec("x"), y = fvec("y");
    return FunctionGraph({x, y}, {add(exp(x), log(y))});
  };
  {
    FunctionGraph fg = build();
    fg.check_integrity();
    detail::corrupt_for_testing(fg, Corruption::InputWithoutEdge);
    REQUIRE_THROWS_WITH(fg.check_integrity(), Catch::Contains("disagrees with its edge"));
  }
  {
    FunctionGraph fg = build();
    detail::corrupt_for_testing(fg, Corruption::DroppedEdge);
    REQUIRE_THROWS_WITH(fg.check_integrity(),
                        Catch::Contains("in-edges") || Catch::Contains("has no clients"));
  }
  {
    FunctionGraph fg = build();
    detail::corrupt_for_testing(fg, Corruption::NodeCount);
    REQUIRE_THROWS_WITH(fg.check_integrity(), Catch::Contains("count"));
  }
  {
    FunctionGraph fg = build();
    detail::corrupt_for_testing(fg, Corruption::DanglingNode);
    REQUIRE_THROWS_WITH(fg.check_integrity(), Catch::Contains("does not point back") ||
                                              Catch::Contains("disagrees with its edge"));
  }
  {
    FunctionGraph fg = build();
    detail::corrupt_for_testing(fg, Corruption::StaleKind);
    REQUIRE_THROWS_WITH(fg.check_integrity(), Catch::Contains("keeps the kind of another Op"));
  }
}

TEST_CASE("random replacements keep the graph consistent", "[graph]") {
  // A random DAG over two inputs; then replace random variables by others that
  // do not depend on them, checking integrity and refusals along the way.
  std::mt19937 rng(1234);
  std::vector<Var> pool{fvec("a"), fvec("b")};
  const Var inputs[] = {pool[0], pool[1]};
  for (int i = 0; i < 300; ++i) {
    auto pick = [&] { return pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]; };
    switch (rng() % 4) {
      case 0: pool.push_back(add(pick(), pick())); break;
      case 1: pool.push_back(mul(pick(), pick())); break;
      case 2: pool.push_back(exp(pick())); break;
      default: pool.push_back(neg(pick())); break;
    }
  }
  std::vector<Var> outs(pool.end() - 20, pool.end());
  FunctionGraph fg({inputs[0], inputs[1]}, outs, false);
  fg.check_integrity();
  int accepted = 0, refused = 0;
  for (int step = 0; step < 400; ++step) {
    const auto vars = fg.variables();
    const Var old_var = vars[rng() % vars.size()];
    if (!old_var->owner()) continue;
    const Var base = vars[rng() % vars.size()];
    const Var repl = (rng() % 2) ? neg(base) : base;
    try {
      fg.replace(old_var, repl, "random");
      ++accepted;
    } catch (const ReplacementError&) {
      ++refused;  // cycles mostly
    }
    fg.check_integrity();
  }
  REQUIRE(accepted > 50);
  REQUIRE(refused > 0);
}

TEST_CASE("a million-node chain is built, imported and dropped without recursion", "[graph]") {
  Var x = fvec("x");
  Var v = x;
  for (int i = 0; i < 1'000'000; ++i) v = (i % 2) ? exp(v) : neg(v);
  {
    FunctionGraph fg({x}, {v}, false);
    REQUIRE(fg.num_nodes() == 1'000'000);
    REQUIRE(fg.toposort().size() == 1'000'000);
    fg.replace(v, x);
    REQUIRE(fg.num_nodes() == 0);
  }
  v = Var();  // the sanitizer build checks that nothing leaks
}

TEST_CASE("a feature whose on_attach throws is not attached", "[graph]") {
  struct Refuses final : Feature {
    void on_attach(FunctionGraph&) override { throw InconsistencyError("cannot attach here"); }
  };
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  REQUIRE_THROWS_WITH(fg.attach_feature(std::make_shared<Refuses>()),
                      Catch::Contains("cannot attach here"));
  REQUIRE(fg.features().empty());
  REQUIRE(fg.find_feature<Refuses>() == nullptr);
}

TEST_CASE("a refused replacement releases the nodes and constants it brought in", "[graph]") {
  auto [x, y, e, m, out] = shared_exp();
  FunctionGraph fg({x, y}, {out}, false);
  const std::string before = shape_of(fg);
  const std::size_t nodes_before = fg.num_nodes();

  // New nodes and a new constant, found before the cycle is: all given back.
  Var two = fconst(2.0);
  Var cyclic = add(neg(m), two);
  REQUIRE_THROWS_WITH(fg.replace(e, cyclic), Catch::Contains("cycle"));
  // A new constant and new nodes, then an input the graph lacks.
  Var three = fconst(3.0);
  Var missing = mul(add(x, three), fvec("z"));
  REQUIRE_THROWS_WITH(fg.replace(e, missing), Catch::Contains("`z` is needed"));

  REQUIRE(shape_of(fg) == before);
  REQUIRE(fg.num_nodes() == nodes_before);
  REQUIRE_FALSE(fg.contains(*two));
  REQUIRE_FALSE(fg.contains(*three));
  REQUIRE_FALSE(cyclic->owner()->in_fgraph());
  REQUIRE_FALSE(cyclic->owner()->input(0)->owner()->in_fgraph());
  REQUIRE_FALSE(missing->owner()->input(0)->owner()->in_fgraph());
  fg.check_integrity();

  // Released, the same nodes can be imported where they make no cycle.
  fg.replace(out, cyclic);
  REQUIRE(fg.contains(*cyclic->owner()));
  REQUIRE(fg.contains(*two));
  REQUIRE(to_infix(fg.outputs()[0]) == "-(exp(x) * y) + 2.0");
  fg.check_integrity();
}

TEST_CASE("a feature may replace from inside a callback", "[graph]") {
  // While the outer replacement is importing and changing inputs, the nested
  // one imports nodes of its own: the graph's scratch buffers must not be
  // shared between the two.
  class Nested final : public Feature {
   public:
    Var target, replacement;
    int fired = 0;
    void on_change_input(FunctionGraph& fg, const Client&, const Var&, const Var&,
                         std::string_view reason) override {
      if (fired++ == 0) fg.replace(target, replacement, std::string(reason) + " (nested)");
    }
  };
  Var x = fvec("x"), y = fvec("y");
  Var l = log(y);
  FunctionGraph fg({x, y}, {add(exp(x), l), mul(exp(x), l)}, false);
  auto nested = std::make_shared<Nested>();
  nested->target = l;
  nested->replacement = mul(y, add(y, fconst(1.0)));
  fg.attach_feature(nested);
  const Var e = fg.outputs()[0]->owner()->input(0);
  fg.replace(e, neg(sub(x, fconst(2.0))), "outer");
  fg.check_integrity();
  REQUIRE(nested->fired >= 2);
  REQUIRE(to_infix(fg.outputs()[0]) == "-(x - 2.0) + y * (y + 1.0)");
  REQUIRE_FALSE(fg.contains(*l));
  REQUIRE(fg.num_nodes() == 7);  // add, mul (the outputs), neg, sub, the other exp, mul, add
}

TEST_CASE("nodes outlive the graph whose storage held them", "[graph]") {
  // Vertices and edges live in the graph's own pool; nodes and variables are
  // counted separately, so handles stay valid after the graph is gone.
  Var x = fvec("x");
  Var kept, pruned;
  {
    Var v = x;
    for (int i = 0; i < 200; ++i) v = (i % 2) ? exp(v) : add(v, fconst(i));
    FunctionGraph fg({x}, {v}, false);
    pruned = v->owner()->input(0);
    kept = v;
    for (int i = 0; i < 50; ++i) {
      const Var out = fg.outputs()[0];
      fg.replace(out, neg(out->owner()->input(0)), "shrink");
      fg.check_integrity();
    }
    kept = fg.outputs()[0];
    REQUIRE(kept->owner()->in_fgraph());
  }
  REQUIRE_FALSE(kept->owner()->in_fgraph());
  REQUIRE_FALSE(pruned->owner()->in_fgraph());
  // Still whole: walkable, and importable into a new graph.
  std::size_t depth = 0;
  for (Var v = kept; v->owner(); v = v->owner()->input(0)) ++depth;
  REQUIRE(depth > 100);
  FunctionGraph again({x}, {kept}, false);
  again.check_integrity();
  REQUIRE(again.num_nodes() == depth);
}

TEST_CASE("replacing a variable nobody uses imports nothing", "[graph]") {
  Var x = fvec("x"), unused = fvec("unused");
  FunctionGraph fg({x, unused}, {exp(x)}, false);
  const std::string before = shape_of(fg);
  Var c = fconst(4.0);
  fg.replace(unused, add(x, c));
  REQUIRE(shape_of(fg) == before);
  REQUIRE(fg.num_nodes() == 1);
  REQUIRE_FALSE(fg.contains(*c));
  fg.check_integrity();
}

TEST_CASE("change_op makes a node apply another Op, keeping its inputs, outputs and uses",
          "[graph]") {
  auto [x, y, e, m, out] = shared_exp();
  FunctionGraph fg({x, y}, {out}, false);
  auto rec = std::make_shared<Recorder>();
  fg.attach_feature(rec);
  Apply& node = *e->owner();
  const ClientList uses = fg.clients(*e);
  const std::size_t nodes = fg.num_nodes();
  const std::uint64_t order = fg.order_of(node);

  REQUIRE(node.kind_index() == OpKind::of("exp").index());
  fg.change_op(node, toy("neg", 1), "why");
  REQUIRE(node.op().name() == "neg");
  REQUIRE(node.kind_index() == OpKind::of("neg").index());  // drivers dispatch on it
  REQUIRE(node.output(0) == e);  // the same variable, still read by the same nodes
  REQUIRE(fg.clients(*e) == uses);
  REQUIRE(node.input(0) == x);
  REQUIRE(fg.num_nodes() == nodes);
  REQUIRE(fg.order_of(node) == order);
  REQUIRE(rec->events.size() == 2);  // attach, then the one change
  REQUIRE(rec->events.back() == "op exp -> neg (why)");
  REQUIRE(debugprint(fg).find("neg") != std::string::npos);
  fg.check_integrity();

  // The same Op again changes nothing and tells nobody.
  fg.change_op(node, node.op_ptr());
  REQUIRE(rec->events.size() == 2);
}

TEST_CASE("a refused change of Op leaves the graph exactly as it was", "[graph]") {
  auto [x, y, e, m, out] = shared_exp();
  FunctionGraph fg({x, y}, {out}, false);
  auto veto = std::make_shared<Veto>();
  auto rec = std::make_shared<Recorder>();
  fg.attach_feature(veto);
  fg.attach_feature(rec);
  const std::string before = shape_of(fg);
  Apply& node = *e->owner();
  const OpPtr op = node.op_ptr();
  bool vetoed = false;

  SECTION("a null Op") {
    REQUIRE_THROWS_WITH(fg.change_op(node, nullptr), Catch::Contains("null Op"));
  }
  SECTION("a node not in the graph") {
    Var stray = exp(y);
    REQUIRE_THROWS_WITH(fg.change_op(*stray->owner(), toy("neg", 1), "try"),
                        Catch::Contains("`exp` node is not in the graph") &&
                            Catch::Contains("(try)"));
  }
  SECTION("an Op that does not take the node's inputs") {
    REQUIRE_THROWS_WITH(fg.change_op(node, toy("add", 2)),
                        Catch::Contains("`add` does not apply to the inputs of `exp`"));
  }
  SECTION("an Op with other outputs") {
    REQUIRE_THROWS_WITH(fg.change_op(node, std::make_shared<ToyTwoOut>()),
                        Catch::Contains("`two_out` has 2 outputs where `exp` has 1"));
  }
  SECTION("an Op whose make_node takes other inputs") {
    REQUIRE_THROWS_WITH(fg.change_op(node, std::make_shared<ExpPlusInput>()),
                        Catch::Contains("`exp_plus` would take 2 inputs where `exp` has 1"));
  }
  SECTION("an Op that types the output otherwise") {
    REQUIRE_THROWS_WITH(fg.change_op(node, toy_sum(std::nullopt)),
                        Catch::Contains("types output 0 as f64[], not f64[?]"));
  }
  SECTION("a feature vetoes") {
    veto->armed = true;
    REQUIRE_THROWS_WITH(fg.change_op(node, toy("neg", 1), "try"),
                        Catch::Contains("veto says no") && Catch::Contains("(try)"));
    // Listeners heard the change and its undo.
    REQUIRE(rec->events.size() == 3);
    REQUIRE(rec->events[1] == "op exp -> neg (try)");
    REQUIRE(rec->events[2] == "op neg -> exp (rollback: try)");
    veto->armed = false;
    vetoed = true;
  }
  SECTION("a feature throws while hearing the change") {
    auto loud = std::make_shared<LoudOnChange>();
    fg.attach_feature(loud);
    loud->armed = true;
    REQUIRE_THROWS_WITH(fg.change_op(node, toy("neg", 1), "try"),
                        Catch::Contains("loud says no") && Catch::Contains("(try)"));
    // Every feature hears the undo, also those after the one that threw.
    REQUIRE(rec->events.size() == 3);
    REQUIRE(rec->events[2] == "op neg -> exp (rollback: try)");
    fg.detach_feature(*loud);
    vetoed = true;
  }
  REQUIRE(node.op_ptr() == op);
  REQUIRE(node.kind_index() == OpKind::of("exp").index());
  REQUIRE(shape_of(fg) == before);
  fg.check_integrity();
  // Refused before changing anything, nobody heard of it but the attach.
  if (!vetoed) REQUIRE(rec->events.size() == 1);
  // And the graph still accepts good changes.
  fg.change_op(node, toy("log", 1));
  REQUIRE(shape_of(fg) != before);
}

namespace {
/// Throws from on_import while `armed`, except while hearing an undo.
class LoudOnImport final : public Feature {
 public:
  bool armed = false;
  int heard = 0;
  void on_import(FunctionGraph&, Apply&, std::string_view reason) override {
    if (armed && reason.substr(0, 8) != "rollback") throw InconsistencyError("import says no");
    ++heard;
  }
};

/// Throws from every callback that is part of an undo.
class LoudOnRollback final : public Feature {
 public:
  static void refuse(std::string_view reason) {
    if (reason.substr(0, 8) == "rollback") throw InconsistencyError("rollback heard badly");
  }
  void on_import(FunctionGraph&, Apply&, std::string_view reason) override { refuse(reason); }
  void on_prune(FunctionGraph&, Apply&, std::string_view reason) override { refuse(reason); }
  void on_change_input(FunctionGraph&, const Client&, const Var&, const Var&,
                       std::string_view reason) override {
    refuse(reason);
  }
};
}  // namespace

TEST_CASE("a feature that throws from on_import refuses the change and leaves nothing behind",
          "[graph]") {
  auto [x, y, e, m, out] = shared_exp();
  FunctionGraph fg({x, y}, {out}, false);
  auto rec = std::make_shared<Recorder>();
  auto loud = std::make_shared<LoudOnImport>();
  fg.attach_feature(rec);
  fg.attach_feature(loud);
  const std::string before = shape_of(fg);
  const std::size_t nodes_before = fg.num_nodes();
  Var two = fconst(2.0);
  Var fresh = add(neg(x), two);
  loud->armed = true;

  SECTION("replace") {
    REQUIRE_THROWS_WITH(fg.replace(e, fresh, "try"),
                        Catch::Contains("import says no") && Catch::Contains("(try)"));
  }
  SECTION("replace_all") {
    const std::pair<Var, Var> pairs[] = {{m, mul(e, e)}, {e, fresh}};
    REQUIRE_THROWS_AS(fg.replace_all(pairs, "try"), ReplacementError);
  }
  SECTION("change_input") {
    REQUIRE_THROWS_WITH(fg.change_input(Client{m->owner(), 0}, fresh, "try"),
                        Catch::Contains("import says no"));
  }
  SECTION("add_output") {
    REQUIRE_THROWS_WITH(fg.add_output(fresh, "try"), Catch::Contains("import says no"));
    REQUIRE(fg.outputs().size() == 1);
  }
  REQUIRE(shape_of(fg) == before);
  REQUIRE(fg.num_nodes() == nodes_before);
  fg.check_integrity();
  // The new nodes and constant were given back, not kept claimed.
  REQUIRE_FALSE(fresh->owner()->in_fgraph());
  REQUIRE_FALSE(fresh->owner()->input(0)->owner()->in_fgraph());
  REQUIRE_FALSE(fg.contains(*two));
  // A listener that heard a node come in hears it go.
  std::size_t imports = 0, prunes = 0;
  for (const std::string& ev : rec->events) {
    imports += ev.rfind("import ", 0) == 0;
    prunes += ev.rfind("prune ", 0) == 0;
  }
  REQUIRE(imports == prunes);
  // And the graph still takes the change once the listener agrees.
  loud->armed = false;
  fg.replace(e, fresh);
  fg.check_integrity();
  REQUIRE(fresh->owner()->in_fgraph());
}

TEST_CASE("a listener that throws while hearing the undo cannot stop it", "[graph]") {
  auto [x, y, e, m, out] = shared_exp();
  FunctionGraph fg({x, y}, {out}, false);
  auto loud = std::make_shared<LoudOnRollback>();
  auto veto = std::make_shared<Veto>();
  fg.attach_feature(loud);
  fg.attach_feature(veto);
  const std::string before = shape_of(fg);
  const std::size_t nodes_before = fg.num_nodes();
  veto->armed = true;
  Var fresh = neg(x);

  SECTION("replace, which prunes and imports on the way back") {
    // `m` is the only use of its node: the undo re-imports it.
    REQUIRE_THROWS_WITH(fg.replace(m, fresh, "try"),
                        Catch::Contains("veto says no") &&
                            Catch::Contains("rollback heard badly"));
  }
  SECTION("change_input") {
    REQUIRE_THROWS_WITH(fg.change_input(Client{m->owner(), 0}, fresh, "try"),
                        Catch::Contains("veto says no"));
  }
  REQUIRE(shape_of(fg) == before);
  REQUIRE(fg.num_nodes() == nodes_before);
  REQUIRE_FALSE(fresh->owner()->in_fgraph());
  fg.check_integrity();
}

TEST_CASE("attach_feature refuses a null feature", "[graph]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  REQUIRE_THROWS_AS(fg.attach_feature(nullptr), Error);
  REQUIRE(fg.features().empty());
}
