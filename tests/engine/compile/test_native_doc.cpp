// The examples of docs/native.md: each is run here, and the page must show
// exactly the code between the markers.
#include <rw/rw.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "runtime/kernels/elemwise.hpp"
#include "support/doc_snippets.hpp"
#include "support/temp_dir.hpp"

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/engine/compile/test_native_doc.cpp";
const std::string kPage = RW_SOURCE_DIR "/docs/native.md";

void require_on_page(const std::string& name) {
  INFO(rw::test::missing_doc_block(kThisFile, name, kPage));
  REQUIRE(rw::test::missing_doc_block(kThisFile, name, kPage).empty());
}

// [doc:op]
/// 2x + 1 on a float64 tensor, with C++ source for the native backend.
class TwiceAddOne final : public rw::Op {
 public:
  std::string_view name() const override { return "twice_add_one"; }
  rw::ApplyRef make_node(std::span<const rw::Var> inputs) const override {
    const rw::TensorType* t = inputs.size() == 1 ? inputs[0]->tensor_type() : nullptr;
    if (!t || t->dtype() != rw::f64) throw rw::TypeError("`twice_add_one` takes one f64 tensor");
    const rw::TypePtr out[] = {inputs[0]->type()};
    return rw::Apply::create(ptr(), inputs, out);
  }
  void perform(const rw::Apply&, std::span<const rw::Tensor> in,
               std::span<rw::Tensor> out) const override {
    out[0] = rw::elemwise(rw::ScalarOp::Add,
                          rw::elemwise(rw::ScalarOp::Mul, in[0], rw::Tensor::scalar(2.0)),
                          rw::Tensor::scalar(1.0));
  }
  std::optional<rw::NativeCode> native_code(const rw::Apply&,
                                            const rw::NativeNames& names) const override {
    rw::NativeCode code;
    code.c_support_code = "static double twice_add_one(double v) { return 2 * v + 1; }";
    code.c_code = fmt::format(R"(
  const rw_tensor& x = {0};
  if (!x.contiguous) return RW_FALLBACK;   // the interpreter runs perform
  if (ctx->alloc(ctx, 0, x.ndim, x.shape, &{1})) return RW_FAIL;
  const double* a = static_cast<const double*>(x.data);
  double* z = static_cast<double*>({1}.data);
  for (std::int64_t i = 0; i < x.size; ++i) z[i] = twice_add_one(a[i]);
  return RW_OK;)",
                              names.inputs[0], names.outputs[0]);
    code.c_code_cache_version = "1";
    return code;
  }
};
// [/doc:op]

}  // namespace

TEST_CASE("docs/native.md: an Op with C++ source", "[native][docs]") {
  rw::test::TempDir dir("doc");
  // [doc:use]
  rw::Var x = rw::vector("x");
  rw::Var y = (*std::make_shared<TwiceAddOne>())({x});
  rw::FunctionOptions options;
  options.native.mode = rw::Native::Sync;      // wait for the compiler
  options.native.compile_dir = dir.path();     // default: ~/.cache/rwgraph
  auto f = rw::function({x}, rw::exp(y), options);
  CHECK(f.native_status().state == rw::NativeStatus::State::Ready);
  CHECK(f.native_status().native_nodes == 2);  // twice_add_one and exp
  CHECK(rw::allclose(f(rw::Tensor::from({0.0, 1.0})), rw::Tensor::from({std::exp(1.0), std::exp(3.0)})));
  // [/doc:use]
  CHECK_THAT(f.native_source(), Catch::Contains("twice_add_one(a[i])"));
  // A view that is not contiguous: the code declines, perform runs.
  const rw::Tensor m = rw::Tensor::arange(0.0, 4.0).slice(0, 0, 4, 2);
  CHECK(rw::allclose(f(m), rw::Tensor::from({std::exp(1.0), std::exp(5.0)})));
  require_on_page("op");
  require_on_page("use");
}

TEST_CASE("docs/native.md: an implementation for one backend", "[native][docs]") {
  rw::test::TempDir dir("doc-impl");
  // [doc:impl]
  auto impls = std::make_shared<rw::ImplRegistry>();
  rw::register_impl<TwiceAddOne>(*impls, "interpreter",
      [](const rw::Apply&, std::span<const rw::Tensor> in, std::span<rw::Tensor> out) {
        out[0] = rw::Tensor::full(in[0].shape(), 1.0);   // a stand-in
      });
  rw::Var x = rw::vector("x");
  auto f = rw::function({x}, (*std::make_shared<TwiceAddOne>())({x}), {.impls = impls});
  CHECK(rw::allclose(f(rw::Tensor::from({5.0})), rw::Tensor::from({1.0})));
  // [/doc:impl]
  require_on_page("impl");
}
