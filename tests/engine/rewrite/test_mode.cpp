// The standard pipeline and the modes built from queries over it.
#include <catch2/catch.hpp>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/sequence.hpp"
#include "engine/rewrite/standard.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

using Names = std::vector<std::string>;

TEST_CASE("fast_run runs merge, canonicalize, stabilize, specialize, merge by position",
          "[rewrite]") {
  auto db = make_standard_db();
  REQUIRE(db->name() == "optdb");
  REQUIRE(Mode::fast_run(db).db()->selected_names(Mode::fast_run(db).query()) ==
          Names{"merge1", "useless", "merge1.1", "canonicalize", "canonicalize/constant_folding",
                "canonicalize/merge", "merge1.2", "stabilize", "stabilize/constant_folding",
                "specialize", "specialize/constant_folding", "uncanonicalize",
                "uncanonicalize/constant_folding", "merge2", "merge3"});
}

TEST_CASE("fast_compile, none, merge and stabilize select what Aesara's do", "[rewrite]") {
  auto db = make_standard_db();
  auto names = [&](const Mode& m) { return m.db()->selected_names(m.query()); };
  REQUIRE(names(Mode::fast_compile(db)) ==
          Names{"merge1", "useless", "merge1.1", "canonicalize", "canonicalize/constant_folding",
                "canonicalize/merge", "merge1.2", "specialize", "specialize/constant_folding"});
  REQUIRE(names(Mode::none(db)).empty());
  REQUIRE(names(Mode::merge(db)) == Names{"merge1", "merge1.1", "merge1.2", "merge2", "merge3"});
  REQUIRE(names(Mode::stabilize(db)) ==
          Names{"merge1", "useless", "merge1.1", "canonicalize", "canonicalize/constant_folding",
                "canonicalize/merge", "merge1.2", "stabilize", "stabilize/constant_folding"});
  REQUIRE(names(Mode::fast_run(db).excluding({"merge", "constant_folding"})) ==
          Names{"useless", "canonicalize", "stabilize", "specialize", "uncanonicalize"});
  REQUIRE(names(Mode::none(db).including({"canonicalize"})) ==
          Names{"canonicalize", "canonicalize/constant_folding", "canonicalize/merge"});
}

TEST_CASE("a mode is found by name, in any case", "[rewrite]") {
  auto db = make_standard_db();
  REQUIRE(Mode::named("FAST_RUN", db).name() == "fast_run");
  REQUIRE(Mode::named("fast_compile", db).query().include() == Names{"fast_compile"});
  REQUIRE(Mode::named("None", db).query().include().empty());
  REQUIRE_THROWS_WITH(Mode::named("fast", db),
                      "unknown mode `fast`; the modes are `fast_run`, `fast_compile`, `none`, "
                      "`merge`, `stabilize`");
  REQUIRE_THROWS_WITH(Mode(nullptr, {}, "m"), "mode `m` needs a rewrite database");
}

TEST_CASE("rewriters registered in the standard groups run in fast_run", "[rewrite]") {
  auto db = make_standard_db();
  auto& canonicalize = db->sub<EquilibriumDB>("canonicalize");
  canonicalize.add(div_cancel(), {"fast_run", "fast_compile"});
  canonicalize.add(mul_one(), {"experimental"});
  Var x = fvec("x"), y = fvec("y");
  const Var out = mul(mul(div(mul(x, y), y), sub(fconst(3), fconst(2))), fconst(1));
  {
    FunctionGraph fg({x, y}, {out});
    const PassReport r = Mode::fast_run(db).rewrite(fg);
    REQUIRE(r.ok());
    REQUIRE(infix(fg) == "x * 1.0 * 1.0");
    // The two constants 1.0 were merged.
    const Apply* outer = fg.outputs()[0]->owner();
    REQUIRE(outer->input(1) == outer->input(0)->owner()->input(1));
  }
  {
    FunctionGraph fg({x, y}, {out});
    REQUIRE(Mode::fast_run(db).including({"experimental"}).rewrite(fg).ok());
    REQUIRE(infix(fg) == "x");
  }
  {
    FunctionGraph fg({x, y}, {out});
    Mode::none(db).rewrite(fg);
    REQUIRE(infix(fg) == to_infix(out));
  }
}

TEST_CASE("a mode can add a pass at a position for one call", "[rewrite]") {
  auto db = make_standard_db();
  std::vector<std::string> order;
  auto probe = std::make_shared<FunctionGraphRewriter>(
      "probe", [&](FunctionGraph&, RewriteContext&) {
        order.push_back("probe");
        return false;
      });
  auto names = [](const GraphRewriterPtr& g) {
    Names out;
    for (const auto& p : dynamic_cast<const SequenceRewriter&>(*g).passes()) out.push_back(p->name());
    return out;
  };
  const Mode m = Mode::fast_compile(db).registering(probe, 1.1);
  REQUIRE(names(m.rewriter()) == Names{"merge1", "useless", "merge1.1", "canonicalize", "probe",
                                        "merge1.2", "specialize"});
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  m.rewrite(fg);
  REQUIRE(order == Names{"probe"});
  REQUIRE(names(Mode::fast_compile(db).rewriter()).size() == 6);
}

TEST_CASE("a built pipeline summarizes what it runs", "[rewrite]") {
  auto db = make_standard_db();
  db->sub<EquilibriumDB>("canonicalize").add(div_cancel(), {"fast_run"});
  const std::string summary = Mode::fast_run(db).rewriter()->summary();
  INFO(summary);
  REQUIRE(summary.rfind("optdb (sequence)\n  merge1\n  useless (in to out)\n", 0) == 0);
  REQUIRE(summary.find("  canonicalize (equilibrium)\n"
                       "    constant_folding [any] op(constants…) -> constant\n"
                       "    div_cancel [div] (x * y) / y -> x, (x * y) / x -> y\n"
                       "    cleanup:\n"
                       "      merge\n") != std::string::npos);
  REQUIRE(summary.find("  merge3\n") != std::string::npos);
}
