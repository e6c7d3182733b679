// The examples of docs/fusion.md: each is run here, and the page must show
// exactly the code between the markers.
#include <algorithm>
#include <rw/rewrite.hpp>

#include <catch2/catch.hpp>

#include "support/doc_snippets.hpp"

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/ops/test_fusion_doc.cpp";
const std::string kPage = RW_SOURCE_DIR "/docs/fusion.md";

void require_on_page(const std::string& name) {
  const std::string code = rw::test::source_snippet(kThisFile, name);
  const std::vector<std::string> blocks = rw::test::markdown_cpp_blocks(kPage);
  INFO("docs/fusion.md must contain this ```cpp block (snippet `" << name << "`):\n" << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

}  // namespace

TEST_CASE("docs/fusion.md: a Composite", "[ops][fusion][docs]") {
  // [doc:composite]
  rw::ScalarProgram p;
  rw::Reg x = p.input(rw::f64), y = p.input(rw::f64);
  p.output(p.apply(rw::ScalarOp::Mul, {p.apply(rw::ScalarOp::Exp, {p.apply(rw::ScalarOp::Neg, {x})}), y}));
  auto op = std::make_shared<rw::Composite>(p);
  CHECK(op->to_string() == "Composite{exp(-i0) * i1}");
  rw::Var out = (*op)({rw::matrix("m"), rw::vector("v")});   // broadcasts: f64[?,?]
  // [/doc:composite]
  CHECK(out->type()->to_string() == "f64[?,?]");
  require_on_page("composite");
}

TEST_CASE("docs/fusion.md: fusing a graph", "[ops][fusion][docs]") {
  // [doc:fusion]
  rw::Var x = rw::vector("x"), y = rw::vector("y");
  rw::Var e = rw::exp(x) * 2.0;                     // also returned: an extra output
  rw::FunctionGraph fg({x, y}, {rw::tanh(e) + y * e, e, rw::sum(rw::sqr(x - y))});
  rw::ElemwiseFusion().rewrite(fg);
  // fg.outputs()[0], [1]: outputs 0 and 1 of one node,
  //   Composite{tanh(exp(i0) * 2.0) + i1 * (exp(i0) * 2.0), exp(i0) * 2.0}(x, y)
  // fg.outputs()[2]: sum[Composite{sqr(i0 - i1)}](x, y)
  // [/doc:fusion]
  CHECK(fg.outputs()[0]->owner() == fg.outputs()[1]->owner());
  CHECK(fg.outputs()[1]->index() == 1);
  CHECK(fg.outputs()[0]->owner()->op().to_string() ==
        "Composite{tanh(exp(i0) * 2.0) + i1 * (exp(i0) * 2.0), exp(i0) * 2.0}");
  CHECK(fg.outputs()[0]->owner()->input(0) == fg.inputs()[0]);
  CHECK(fg.outputs()[0]->owner()->input(1) == fg.inputs()[1]);
  CHECK(rw::to_infix(fg.outputs()[2]) == "sum[Composite{sqr(i0 - i1)}](x, y)");
  require_on_page("fusion");
}

TEST_CASE("docs/fusion.md: the standard pipeline and in-place", "[ops][fusion][docs]") {
  // [doc:pipeline]
  auto db = rw::make_standard_db();
  rw::register_fast_run_rewrites(*db);       // fusion at 49, gemm before it, in-place at 75
  rw::FunctionOptions options;
  options.rewrite = [db](rw::FunctionGraph& fg) { rw::Mode::fast_run(db).rewrite(fg); };

  rw::Var a = rw::matrix("a"), v = rw::matrix("v"), w = rw::matrix("w"), z = rw::matrix("z");
  rw::Function f = rw::function({a, v, w, z}, {rw::tanh(rw::dot(a, w)) + 1.0, rw::exp(z) + rw::dot(a, v)},
                                options);
  // f.schedule(): dot, Composite{tanh(i0) + 1.0}{inplace=(0, 0)}, exp, gemm{inplace=true}
  // [/doc:pipeline]
  std::vector<std::string> ops;
  for (const rw::Apply* n : f.schedule()) ops.push_back(n->op().to_string());
  std::sort(ops.begin(), ops.end());
  CHECK(ops == std::vector<std::string>{"Composite{tanh(i0) + 1.0}{inplace=(0, 0)}", "dot", "exp",
                                        "gemm{inplace=true}"});
  require_on_page("pipeline");
}

TEST_CASE("docs/fusion.md: the destroy handler", "[ops][fusion][docs]") {
  // [doc:destroy]
  rw::Var x = rw::vector("x");
  rw::Var e = rw::exp(x);
  rw::FunctionGraph fg({x}, {e + 1.0, e * 2.0}, /*clone=*/false);
  const rw::DestroyHandler& dh = rw::require_destroy_handler(fg);
  rw::Apply& add = *fg.outputs()[0]->owner();
  std::optional<std::string> why = dh.why_not_destroy(fg, add, 0);
  // *why == "`exp(x)` is also read by `mul`": `e + 1.0` may not overwrite e
  // [/doc:destroy]
  REQUIRE(why);
  CHECK(*why == "`exp(x)` is also read by `mul`");
  require_on_page("destroy");
}
