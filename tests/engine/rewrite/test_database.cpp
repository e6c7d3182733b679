// The rewrite database: registration and its refusals, queries with
// include/require/exclude and subqueries (Aesara's semantics), positions, and
// the pipelines built from them.
#include <catch2/catch.hpp>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/merge.hpp"
#include "engine/rewrite/sequence.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

NodeRewriterPtr named(const std::string& name) {
  return make_node_rewriter(name, Tracks::any(),
                            [](FunctionGraph&, Apply&, const RewriteContext&) {
                              return RewriteResult::fail("only its registration is queried");
                            },
                            0);
}

std::vector<std::string> names_of(const std::vector<const RewriteDB::Entry*>& entries) {
  std::vector<std::string> out;
  for (const auto* e : entries) out.push_back(e->name);
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("a query takes any of include, all of require, none of exclude", "[rewrite]") {
  EquilibriumDB db("group");
  db.add(named("a"), {"fast_run", "x"});
  db.add(named("b"), {"fast_run"});
  db.add(named("c"), {"x", "y"});
  db.add(named("d"), {"y"});
  REQUIRE(names_of(db.select(RewriteQuery{})) == Names{});
  REQUIRE(names_of(db.select({"x"})) == Names{"a", "c"});
  REQUIRE(names_of(db.select({"fast_run", "y"})) == Names{"a", "b", "c", "d"});
  REQUIRE(names_of(db.select(RewriteQuery{"fast_run", "y"}.requiring({"x"}))) == Names{"a", "c"});
  REQUIRE(names_of(db.select(RewriteQuery{"fast_run", "y"}.requiring({"x", "y"}))) == Names{"c"});
  REQUIRE(names_of(db.select(RewriteQuery{"fast_run", "y"}.excluding({"x"}))) == Names{"b", "d"});
  // A name is a tag of its entry.
  REQUIRE(names_of(db.select({"d", "b"})) == Names{"b", "d"});
  REQUIRE(names_of(db.select(RewriteQuery{"fast_run"}.excluding({"a"}))) == Names{"b"});
  // The database's own name tags every entry.
  REQUIRE(names_of(db.select({"group"})) == Names{"a", "b", "c", "d"});
  REQUIRE(db.find("a")->tags == Names{"fast_run", "x", "group"});
}

TEST_CASE("the database name as a tag can be turned off per entry", "[rewrite]") {
  EquilibriumDB db("group");
  db.add(named("a"), {"t"});
  db.add(named("special"), {"t"}, EntryOptions{.db_name_as_tag = false});
  REQUIRE(names_of(db.select({"group"})) == Names{"a"});
  REQUIRE(names_of(db.select({"special"})) == Names{"special"});
}

TEST_CASE("registration refuses collisions and leaves the database as it was", "[rewrite]") {
  EquilibriumDB db("canon");
  db.add(named("a"), {"t"});
  REQUIRE_THROWS_WITH(db.add(named("a")), "`canon` already has an entry named `a`");
  REQUIRE_THROWS_WITH(db.add(named("t")),
                      "`canon`: the name `t` collides with a tag of `a`; names and tags share one "
                      "namespace");
  REQUIRE_THROWS_WITH(db.add(named("b"), {"ok", "a"}),
                      "`canon`: tag `a` of `b` collides with the name of an entry; names and tags "
                      "share one namespace");
  REQUIRE_THROWS_WITH(db.add(named("c"), {""}), "`canon`: entry `c` has an empty tag");
  REQUIRE_THROWS_WITH(db.add(NodeRewriterPtr{}), "`canon`: cannot register a null rewriter");
  REQUIRE(db.entries().size() == 1);
  REQUIRE_FALSE(db.contains("b"));
  REQUIRE(db.find("a")->tags == Names{"t", "canon"});
}

TEST_CASE("a registration batch registers everything or nothing, in several databases",
          "[rewrite]") {
  EquilibriumDB canon("canon"), spec("spec");
  canon.add(named("a"), {"t"});
  {
    RegistrationBatch batch;
    batch.add(canon, named("b"), {"fast"});
    batch.add(spec, named("c"));
    batch.add(canon, named("a"));      // taken
    batch.add(spec, named("fast2"));
    batch.add(canon, named("fast"));   // a tag of `b`, registered by this batch
    REQUIRE(batch.size() == 5);
    const auto refused = batch.commit();
    REQUIRE(refused.size() == 2);
    CHECK(refused[0].index == 2);
    CHECK(refused[0].message == "`canon` already has an entry named `a`");
    CHECK(refused[1].index == 4);
    CHECK(refused[1].message ==
          "`canon`: the name `fast` collides with a tag of `b`; names and tags share one namespace");
    CHECK(batch.size() == 0);
  }
  // Both databases as they were, indexes included.
  CHECK(names_of(canon.select(RewriteQuery{"canon"})) == Names{"a"});
  CHECK(spec.entries().empty());
  CHECK_FALSE(canon.contains("b"));
  canon.add(named("fast"));  // `fast` is no tag any more
  canon.add(named("b"), {"u"});
  REQUIRE_THROWS_WITH(canon.add(named("u")),
                      "`canon`: the name `u` collides with a tag of `b`; names and tags share one "
                      "namespace");
  RegistrationBatch ok;
  ok.add(spec, named("c"), {"fast_run"});
  ok.add(spec, named("d"), {"fast_run"});
  CHECK(ok.commit().empty());
  CHECK(names_of(spec.select(RewriteQuery{"fast_run"})) == Names{"c", "d"});
}

TEST_CASE("registration stays fast at ten thousand entries", "[rewrite]") {
  // Names and tags are indexed: this would take seconds with linear scans.
  EquilibriumDB db("big");
  for (int i = 0; i < 10000; ++i) db.add(named("r" + std::to_string(i)), {"fast_run", "t" + std::to_string(i)});
  CHECK(db.find("r9999")->tags == Names{"fast_run", "t9999", "big"});
  REQUIRE_THROWS_WITH(db.add(named("t42")),
                      "`big`: the name `t42` collides with a tag of `r42`; names and tags share one "
                      "namespace");
  db.remove_tags("r42", {"t42"});
  db.add(named("t42"));
  const auto eq = std::dynamic_pointer_cast<const EquilibriumRewriter>(db.build(RewriteQuery{"fast_run"}));
  REQUIRE(eq);
  CHECK(eq->rewriters().size() == 10000);
}

TEST_CASE("each kind of database refuses what it cannot hold", "[rewrite]") {
  EquilibriumDB eq("eq");
  REQUIRE_THROWS_WITH(eq.add(named("n"), {}, EntryOptions{.position = 1}),
                      "`eq` is an equilibrium group: its entries have no position (`n`)");
  REQUIRE_THROWS_WITH(eq.add(named("n"), {}, EntryOptions{.role = EntryRole::Final}),
                      "`eq`: node rewriter `n` cannot be a final or cleanup rewriter; only graph "
                      "rewriters can");
  SequenceDB seq("seq");
  REQUIRE_THROWS_WITH(
      seq.add(std::make_shared<MergeOptimizer>(), {}, EntryOptions{.role = EntryRole::Cleanup}),
      "`seq` is a sequence: final and cleanup roles belong to equilibrium groups (`merge`)");
  WalkingDB walk("walk");
  REQUIRE_THROWS_WITH(walk.add(std::make_shared<MergeOptimizer>()),
                      "`walk` is a walking group: it holds node rewriters only, and `merge` is not "
                      "one");
  auto outer = std::make_shared<SequenceDB>("outer");
  auto inner = std::make_shared<EquilibriumDB>("inner");
  outer->add(inner, {"t"});
  REQUIRE_THROWS_WITH(inner->add(outer), "`inner` cannot contain `outer`, which contains it");
  REQUIRE(inner->entries().empty());
}

TEST_CASE("tags can be added and removed after registration", "[rewrite]") {
  EquilibriumDB db("g");
  db.add(named("a"), {"t"});
  db.add(named("b"));
  db.add_tags("a", {"u", "t"});
  REQUIRE(db.find("a")->tags == Names{"t", "g", "u"});
  REQUIRE_THROWS_WITH(db.add_tags("a", {"b"}),
                      "`g`: tag `b` of `a` collides with the name of an entry; names and tags share "
                      "one namespace");
  REQUIRE_THROWS_WITH(db.add_tags("zz", {"u"}), "`g` has no entry named `zz`");
  db.remove_tags("a", {"t", "g"});
  REQUIRE(db.find("a")->tags == Names{"u"});
  REQUIRE(names_of(db.select({"g"})) == Names{"b"});
}

TEST_CASE("a sequence runs by position, then name, whatever the registration order",
          "[rewrite]") {
  SequenceDB seq("seq");
  seq.add(std::make_shared<MergeOptimizer>("late"), {"t"}, EntryOptions{.position = 5});
  seq.add(std::make_shared<MergeOptimizer>("b_early"), {"t"}, EntryOptions{.position = 1});
  seq.add(std::make_shared<MergeOptimizer>("a_early"), {"t"}, EntryOptions{.position = 1});
  seq.add(std::make_shared<MergeOptimizer>("last"), {"t"});  // after the last: 6
  REQUIRE(seq.find("last")->position == 6);
  REQUIRE(seq.selected_names({"t"}) == Names{"a_early", "b_early", "late", "last"});
  REQUIRE(seq.selected_names(RewriteQuery{"t"}.with_position_cutoff(5)) ==
          Names{"a_early", "b_early"});
  auto built = std::dynamic_pointer_cast<const SequenceRewriter>(seq.build({"t"}));
  REQUIRE(built);
  Names passes;
  for (const auto& p : built->passes()) passes.push_back(p->name());
  REQUIRE(passes == Names{"a_early", "b_early", "late", "last"});
}

TEST_CASE("sub-databases are queried with their subquery or the same query", "[rewrite]") {
  auto outer = std::make_shared<SequenceDB>("outer");
  auto canon = std::make_shared<EquilibriumDB>("canon");
  canon->add(named("r_fast"), {"fast_run"});
  canon->add(named("r_exp"), {"experimental"});
  canon->add(named("r_both"), {"fast_run", "experimental"});
  outer->add(std::make_shared<MergeOptimizer>("m"), {"fast_run"}, EntryOptions{.position = 0});
  outer->add(canon, {"fast_run"}, EntryOptions{.position = 1});

  REQUIRE(outer->selected_names({"fast_run"}) ==
          Names{"m", "canon", "canon/r_fast", "canon/r_both"});
  REQUIRE(outer->selected_names(RewriteQuery{"fast_run"}.excluding({"experimental"})) ==
          Names{"m", "canon", "canon/r_fast"});
  REQUIRE(outer->selected_names(RewriteQuery{"fast_run"}.with_subquery("canon", {"experimental"})) ==
          Names{"m", "canon", "canon/r_exp", "canon/r_both"});
  // Including the group's name selects it at the top and all of it inside.
  REQUIRE(outer->selected_names({"canon"}) ==
          Names{"canon", "canon/r_fast", "canon/r_exp", "canon/r_both"});
  // An unselected group is not entered at all.
  REQUIRE(outer->selected_names({"experimental"}) == Names{});
  REQUIRE(&outer->sub<EquilibriumDB>("canon") == canon.get());
  REQUIRE_THROWS_WITH(outer->sub<EquilibriumDB>("m"),
                      "entry `m` of `outer` is not a database of the kind asked for");
  REQUIRE_THROWS_WITH(outer->sub<SequenceDB>("nope"), "`outer` has no entry named `nope`");
}

TEST_CASE("an equilibrium group builds its roles", "[rewrite]") {
  EquilibriumDB db("canon");
  db.with_max_use_ratio(3).with_node_limit(1000);
  db.add(div_cancel(), {"fast_run"});
  db.add(std::make_shared<MergeOptimizer>("merge"), {"fast_run"},
         EntryOptions{.role = EntryRole::Cleanup});
  db.add(std::make_shared<MergeOptimizer>("final_merge"), {"fast_run"},
         EntryOptions{.role = EntryRole::Final});
  db.add(std::make_shared<MergeOptimizer>("global_merge"), {"fast_run"});
  auto eq = std::dynamic_pointer_cast<const EquilibriumRewriter>(db.build({"fast_run"}));
  REQUIRE(eq);
  REQUIRE(eq->name() == "canon");
  REQUIRE(eq->rewriters().size() == 1);
  REQUIRE(eq->cleanup_rewriters().at(0)->name() == "merge");
  REQUIRE(eq->final_rewriters().at(0)->name() == "final_merge");
  REQUIRE(eq->global_rewriters().at(0)->name() == "global_merge");
  REQUIRE(eq->max_use_ratio() == 3);
  REQUIRE(eq->node_limit() == 1000);

  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {add(div(mul(x, y), y), div(mul(x, y), y))});
  REQUIRE(eq->rewrite(fg).ok());
  REQUIRE(infix(fg) == "x + x");
  REQUIRE(fg.num_nodes() == 1);
}

TEST_CASE("a node rewriter in a sequence runs as a walk; extra passes join by position",
          "[rewrite]") {
  SequenceDB seq("seq");
  seq.add(div_cancel(), {"t"}, EntryOptions{.position = 1});
  seq.add(std::make_shared<MergeOptimizer>("merge"), {"t"}, EntryOptions{.position = 2});
  auto extra = std::make_shared<MergeOptimizer>("extra");
  auto built = std::dynamic_pointer_cast<const SequenceRewriter>(
      seq.build(RewriteQuery{"t"}.registering(extra, 1.5).registering(extra, 9)
                    .with_position_cutoff(3)));
  Names passes;
  for (const auto& p : built->passes()) passes.push_back(p->name());
  REQUIRE(passes == Names{"div_cancel", "extra", "merge"});
  REQUIRE(std::dynamic_pointer_cast<const WalkingRewriter>(built->passes()[0]));
}

TEST_CASE("a query prints what it selects", "[rewrite]") {
  const RewriteQuery q = RewriteQuery{"fast_run"}
                             .requiring({"stable"})
                             .excluding({"inplace"})
                             .with_position_cutoff(1.5)
                             .with_subquery("canon", {"x"});
  REQUIRE(q.to_string() ==
          "include(fast_run) require(stable) exclude(inplace) cutoff(1.5) "
          "canon:[include(x) require() exclude()]");
}
