// Alias roots through view_map and destroy_map.
#include <catch2/catch.hpp>

#include "engine/compile/aliasing.hpp"
#include "engine/compile/compile_ops.hpp"
#include "support/toy_inplace_ops.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {
std::vector<const Variable*> roots(const Var& v, InPlace mode = InPlace::SameBuffer) {
  return alias_roots(*v, mode);
}
}  // namespace

TEST_CASE("a variable computed into its own buffer is its own root", "[compile]") {
  Var x = fvec("x");
  Var e = exp(x);
  REQUIRE(roots(x) == std::vector<const Variable*>{x.get()});
  REQUIRE(roots(e) == std::vector<const Variable*>{e.get()});
  REQUIRE(aliased_inputs(*e->owner(), 0).empty());
  Var c = fconst(1.0);
  REQUIRE(roots(c) == std::vector<const Variable*>{c.get()});
}

TEST_CASE("views lead back to what they view, through chains", "[compile]") {
  Var x = fvec("x");
  Var v = view(view(x));
  REQUIRE(roots(v) == std::vector<const Variable*>{x.get()});
  REQUIRE(aliased_inputs(*v->owner(), 0) == std::vector<std::size_t>{0});
  Var e = exp(x);
  REQUIRE(roots(view(e)) == std::vector<const Variable*>{e.get()});
}

TEST_CASE("in-place outputs share their input's buffer but are a new version", "[compile]") {
  Var x = fvec("x");
  Var e = exp(x);
  Var d = neg_inplace(view(e));
  REQUIRE(roots(d) == std::vector<const Variable*>{e.get()});
  REQUIRE(roots(d, InPlace::NewVersion) == std::vector<const Variable*>{d.get()});
  REQUIRE(roots(view(d), InPlace::NewVersion) == std::vector<const Variable*>{d.get()});
  REQUIRE(aliased_inputs(*d->owner(), 0) == std::vector<std::size_t>{0});
  REQUIRE(aliased_inputs(*d->owner(), 0, InPlace::NewVersion).empty());
}
