// Variables, constants and Apply nodes: ownership and identity.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "runtime/detail/asan.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {
/// An op that counts how many of it are alive, to observe node lifetimes.
class Counted final : public Op {
 public:
  static inline int alive = 0;
  Counted() { ++alive; }
  ~Counted() override { --alive; }
  std::string_view name() const override { return "counted"; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TypePtr t = inputs[0]->type();
    return Apply::create(ptr(), inputs, std::span(&t, 1));
  }
};
}  // namespace

TEST_CASE("holding an output keeps its node and inputs alive", "[graph]") {
  Var x = fvec("x");
  Var out;
  {
    auto op = std::make_shared<Counted>();
    Var mid = (*op)({x});
    out = (*op)({mid});
  }
  REQUIRE(Counted::alive == 1);  // the op lives on in the nodes
  REQUIRE(out->owner()->input(0)->owner()->op().name() == "counted");
  out = Var();
  REQUIRE(Counted::alive == 0);  // both nodes went, and with them the op
}

TEST_CASE("release and adopt hand a reference over without touching the count", "[graph]") {
  Var out;
  Variable* raw = nullptr;
  {
    auto op = std::make_shared<Counted>();
    Var held = (*op)({fvec("x")});
    raw = held.release();
    REQUIRE_FALSE(held);
  }
  REQUIRE(Counted::alive == 1);  // the released reference keeps the node
  out = Var::adopt(raw);
  REQUIRE(out.get() == raw);
  out = Var();
  REQUIRE(Counted::alive == 0);  // the adopted handle dropped the last reference
}

TEST_CASE("a node's outputs know their owner and index", "[graph]") {
  Var x = fvec("x");
  ApplyRef node = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{x});
  REQUIRE(node->num_outputs() == 2);
  REQUIRE(node->output(1)->owner() == node.get());
  REQUIRE(node->output(1)->index() == 1);
  REQUIRE_THROWS_WITH(node->default_output(), Catch::Contains("no default output"));
  Var second = node->output(1);
  node = ApplyRef();
  REQUIRE(second->owner()->num_outputs() == 2);  // still alive through its output
}

TEST_CASE("constants compare by type and value", "[graph]") {
  Var a = Constant::scalar(2.0), b = Constant::scalar(2.0), c = Constant::scalar(3.0);
  Var d = Constant::scalar(2.0, DType::Float32);
  REQUIRE(a != b);  // distinct variables
  REQUIRE(a->as_constant()->same_value(*b->as_constant()));
  REQUIRE(a->as_constant()->signature_hash() == b->as_constant()->signature_hash());
  REQUIRE_FALSE(a->as_constant()->same_value(*c->as_constant()));
  REQUIRE_FALSE(a->as_constant()->same_value(*d->as_constant()));
  REQUIRE(a->as_constant()->scalar_value() == 2.0);
  Var v = Constant::make(Tensor::from({1.0, 2.0}));
  REQUIRE(v->type()->to_string() == "f64[2]");
  REQUIRE_FALSE(v->as_constant()->scalar_value());
  REQUIRE(fvec("x")->as_constant() == nullptr);
}

TEST_CASE("a constant keeps its own copy of its value", "[graph]") {
  Tensor t = Tensor::from({1.0, 2.0});
  Var c = Constant::make(t);
  t.data<double>()[0] = 99.0;
  REQUIRE(c->as_constant()->value().at({0}) == 1.0);
}

TEST_CASE("a constant adopts a value nobody else holds instead of copying it", "[graph]") {
  Tensor t = Tensor::from({1.0, 2.0});
  const void* storage = t.storage().get();
  Var moved = Constant::make(std::move(t));
  REQUIRE(moved->as_constant()->value().storage().get() == storage);

  // A view of a larger buffer is copied even when nobody else holds it.
  Tensor big = Tensor::from({1.0, 2.0, 3.0});
  Tensor part = big.slice(0, 1, 3);
  big = Tensor();
  const void* part_storage = part.storage().get();
  Var from_view = Constant::make(std::move(part));
  REQUIRE(from_view->as_constant()->value().storage().get() != part_storage);
  REQUIRE(from_view->as_constant()->value().at({0}) == 2.0);
  REQUIRE(from_view->as_constant()->value().offset() == 0);
}

TEST_CASE("a constant with an explicit type is checked against it", "[graph]") {
  auto f32vec = TensorType::make(DType::Float32, {kUnknownDim});
  REQUIRE_THROWS_AS(Constant::make(Tensor::from({1.0, 2.0}), f32vec), TypeError);
  Var ok = Constant::make(Tensor::from({1.0f, 2.0f}), f32vec);
  REQUIRE(ok->type()->to_string() == "f32[?]");
}

TEST_CASE("a million-node chain is dropped without recursion", "[graph]") {
  Var v = fvec("x");
  {
    auto op = std::make_shared<Counted>();
    for (int i = 0; i < 1'000'000; ++i) v = (*op)({v});
  }
  REQUIRE(Counted::alive == 1);
  v = Var();  // would overflow the stack if destruction recursed
  REQUIRE(Counted::alive == 0);
}

TEST_CASE("nodes made on one thread may be dropped on another", "[graph]") {
  // Node blocks come from per-thread free lists: a block freed on another
  // thread (which then ends) must go back safely, and the nodes made after it
  // on either thread must be whole.
  auto op = std::make_shared<Counted>();
  std::vector<Var> chains(4);
  for (Var& v : chains) {
    v = fvec("x");
    for (int i = 0; i < 200; ++i) v = (*op)({v});
  }
  REQUIRE(Counted::alive == 1);
  // One thread only frees (when it ends, its lists go to a shared list that
  // other threads adopt); another frees and then makes nodes from what it
  // freed.
  std::thread([&chains] { chains[0] = chains[1] = Var(); }).join();
  bool whole = false;
  std::thread dropper([&chains, &whole] {
    chains[2] = chains[3] = Var();
    auto local = std::make_shared<Counted>();
    Var w = fvec("y");
    for (int i = 0; i < 100; ++i) w = (*local)({w});
    whole = &w->owner()->op() == local.get() && w->owner()->input(0)->owner() != nullptr;
  });
  dropper.join();
  REQUIRE(whole);
  REQUIRE(Counted::alive == 1);  // only `op`: every node, and the thread's ops, went
  Var v = fvec("z");
  for (int i = 0; i < 300; ++i) v = (*op)({v});
  std::size_t depth = 0;
  for (const Variable* p = v.get(); p->owner(); p = p->owner()->input(0).get()) {
    REQUIRE(&p->owner()->op() == op.get());
    REQUIRE(p->owner()->num_inputs() == 1);
    ++depth;
  }
  REQUIRE(depth == 300);
}

TEST_CASE("node blocks freed by a thread that only frees are reused after it ends", "[graph]") {
#if defined(RW_ASAN)
  SUCCEED("under AddressSanitizer every node is its own allocation");
#else
  // Nodes of an unusual size (eleven inputs), dropped on a thread that makes
  // nothing: when it ends its free lists go to the shared list, and the first
  // node of that size made on a fresh thread takes its block from there.
  auto op = std::make_shared<Counted>();
  const Var x = fvec("x");
  const std::vector<Var> inputs(11, x);
  const TypePtr t = x->type();
  std::vector<ApplyRef> nodes;
  std::set<std::uintptr_t> freed;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(Apply::create(op, inputs, std::span(&t, 1)));
    freed.insert(reinterpret_cast<std::uintptr_t>(nodes.back().get()));
  }
  std::thread([&nodes] { nodes.clear(); }).join();
  std::uintptr_t reused = 0;
  std::thread([&] {
    const ApplyRef fresh = Apply::create(op, inputs, std::span(&t, 1));
    reused = reinterpret_cast<std::uintptr_t>(fresh.get());
  }).join();
  REQUIRE(freed.count(reused) == 1);
#endif
}

TEST_CASE("Apply::create refuses a null input", "[graph]") {
  const TypePtr t = fvec("x")->type();
  const Var ins[] = {Var()};
  REQUIRE_THROWS_WITH(Apply::create(toy("exp", 1), ins, std::span(&t, 1)),
                      Catch::Contains("input 0 of `exp` is null"));
}
