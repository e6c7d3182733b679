// ParamsOp: an Op's properties as one typed value, which defines its
// equality, hash and printing and is handed to its perform; dimshuffle, sum
// and gemm are built on it.
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ops/linalg/linalg.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/shape/dimshuffle.hpp"
#include "rw/rewrite.hpp"

namespace {

using rw::Tensor;

enum class Rounding : std::uint8_t { Down, Nearest };

/// Params of every supported kind.
struct ScaleParams {
  double factor = 1.0;
  std::int64_t offset = 0;
  bool negate = false;
  Rounding rounding = Rounding::Down;
  std::optional<std::vector<std::int64_t>> axes;
  rw::DType dtype = rw::f64;
  static constexpr auto fields() {
    return std::tuple{rw::param("factor", &ScaleParams::factor),
                      rw::param("offset", &ScaleParams::offset),
                      rw::param("negate", &ScaleParams::negate),
                      rw::param("rounding", &ScaleParams::rounding),
                      rw::param("axes", &ScaleParams::axes),
                      rw::param("dtype", &ScaleParams::dtype)};
  }
};

/// `scale(x)` = ±(factor · x + offset), as its params say.
class Scale final : public rw::ParamsOp<ScaleParams> {
 public:
  using ParamsOp::ParamsOp;
  std::string_view name() const override { return "scale"; }
  rw::ApplyRef make_node(std::span<const rw::Var> inputs) const override {
    const rw::TypePtr t = inputs[0]->type();
    return rw::Apply::create(ptr(), inputs, std::span(&t, 1));
  }

 protected:
  void perform_with(const ScaleParams& p, const rw::Apply&, std::span<const Tensor> in,
                    std::span<Tensor> out) const override {
    Tensor y = in[0].astype(rw::f64);
    double* d = y.data<double>();
    for (std::int64_t i = 0; i < y.size(); ++i)
      d[i] = (p.negate ? -1 : 1) * (p.factor * d[i] + static_cast<double>(p.offset));
    out[0] = y;
  }
};

}  // namespace

TEST_CASE("a ParamsOp's params are its properties: identity, hash and printing", "[op_params]") {
  const auto a = std::make_shared<Scale>(ScaleParams{.factor = 2.5, .offset = 3, .axes = std::vector<std::int64_t>{0, 1}});
  const auto b = std::make_shared<Scale>(ScaleParams{.factor = 2.5, .offset = 3, .axes = std::vector<std::int64_t>{0, 1}});
  const auto c = std::make_shared<Scale>(ScaleParams{.factor = 2.5, .offset = 4});
  CHECK(a->to_string() ==
        "scale{factor=2.5,offset=3,negate=false,rounding=0,axes=(0,1),dtype=float64}");
  CHECK(c->to_string().find("axes=none") != std::string::npos);
  CHECK(*a == *b);
  CHECK(a->hash() == b->hash());
  CHECK_FALSE(*a == *c);
  CHECK(Scale::param_names() ==
        std::vector<std::string_view>{"factor", "offset", "negate", "rounding", "axes", "dtype"});
  CHECK(a->params().factor == 2.5);

  // perform is given the params.
  const rw::Var x = rw::vector("x");
  const auto neg = std::make_shared<Scale>(ScaleParams{.factor = 2, .offset = 1, .negate = true});
  auto f = rw::function({x}, (*neg)({x}));
  CHECK(rw::allclose(f(Tensor::from({1.0, -0.5})), Tensor::from({-3.0, 0.0})));
}

TEST_CASE("dimshuffle, sum and gemm keep their properties as params", "[op_params]") {
  const rw::Var m = rw::matrix("m");
  const rw::Var t = rw::dimshuffle(m, {1, 0});
  const auto* ds = dynamic_cast<const rw::ParamsOp<rw::DimShuffleParams>*>(&t->owner()->op());
  REQUIRE(ds != nullptr);
  CHECK(ds->params().order == std::vector<std::int64_t>{1, 0});
  CHECK(t->owner()->op().to_string() == "dimshuffle{order=(1,0)}");

  const rw::Var s = rw::sum(m, rw::Axes{0});
  const auto* sum = dynamic_cast<const rw::ParamsOp<rw::ReduceParams>*>(&s->owner()->op());
  REQUIRE(sum != nullptr);
  CHECK(sum->params().axis == std::vector<std::int64_t>{0});
  CHECK(s->owner()->op().to_string() == "sum{axis=(0)}");
  CHECK(rw::sum(m)->owner()->op().to_string() == "sum{axis=none}");

  const rw::Gemm inplace(true);
  CHECK(inplace.params().inplace);
  CHECK(inplace.to_string() == "gemm{inplace=true}");
  CHECK_FALSE(inplace == rw::Gemm(false));
  CHECK(rw::Gemm(false) == rw::Gemm(false));
}
