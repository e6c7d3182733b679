// ProtectInputs: in-place nodes may not overwrite protected inputs or constants.
#include <catch2/catch.hpp>

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/protect_inputs.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "support/toy_inplace_ops.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("an in-place node may not overwrite a protected input, even through a view",
          "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  Var c = Constant::make(Tensor::from({2.0}));
  FunctionGraph fg({x, y}, {neg(view(x)), neg(y), neg(c)});
  auto guard = std::make_shared<ProtectInputs>(std::vector<Var>{fg.inputs()[0]});
  fg.attach_feature(guard);
  REQUIRE(guard->is_protected(*fg.inputs()[0]));
  REQUIRE_FALSE(guard->is_protected(*fg.inputs()[1]));
  REQUIRE(guard->is_protected(*c));

  const std::string before = debugprint(fg);
  const Var viewed = fg.outputs()[0]->owner()->input(0);
  REQUIRE_THROWS_WITH(fg.replace(fg.outputs()[0], neg_inplace(viewed), "inplace"),
                      "replacement refused (inplace): `neg_inplace` would overwrite `x`, which "
                      "the function must not change");
  REQUIRE(debugprint(fg) == before);
  REQUIRE_THROWS_WITH(
      fg.replace(fg.outputs()[2], neg_inplace(fg.outputs()[2]->owner()->input(0)), "inplace"),
      "replacement refused (inplace): `neg_inplace` would overwrite constant `[2.]`, which the "
      "function must not change");
  REQUIRE(debugprint(fg) == before);

  // An unprotected input may be overwritten.
  fg.replace(fg.outputs()[1], neg_inplace(fg.inputs()[1]), "inplace");
  REQUIRE(fg.outputs()[1]->owner()->op().name() == "neg_inplace");
  fg.check_integrity();
  // Once that node is pruned, nothing is left to check.
  fg.replace(fg.outputs()[1], neg(fg.inputs()[1]), "back");
  fg.validate();
}

TEST_CASE("attaching ProtectInputs finds the in-place nodes already there", "[compile]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {neg_inplace(x)});
  fg.attach_feature(std::make_shared<ProtectInputs>(std::vector<Var>{fg.inputs()[0]}));
  REQUIRE_THROWS_AS(fg.validate(), InconsistencyError);
  REQUIRE_THROWS_WITH(fg.validate(),
                      "`neg_inplace` would overwrite `x`, which the function must not change");
}

TEST_CASE("a node changed into an in-place Op may not overwrite a protected input",
          "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {neg(x), neg(y)});
  auto guard = std::make_shared<ProtectInputs>(std::vector<Var>{fg.inputs()[0]});
  fg.attach_feature(guard);
  const OpPtr in_place = std::make_shared<ToyNegInplace>();
  Apply& of_x = *fg.outputs()[0]->owner();
  Apply& of_y = *fg.outputs()[1]->owner();
  const std::string before = debugprint(fg);
  REQUIRE_THROWS_WITH(fg.change_op(of_x, in_place, "inplace"),
                      "change of Op refused (inplace): `neg_inplace` would overwrite `x`, which "
                      "the function must not change");
  REQUIRE(of_x.op().name() == "neg");
  REQUIRE(debugprint(fg) == before);
  // The unprotected one may; and changed back, it no longer counts as overwriting.
  fg.change_op(of_y, in_place, "inplace");
  REQUIRE(of_y.op().name() == "neg_inplace");
  fg.change_op(of_y, toy("neg", 1));
  REQUIRE_NOTHROW(fg.replace(fg.outputs()[1], neg(fg.inputs()[0])));  // reading x stays allowed
  fg.check_integrity();
}
