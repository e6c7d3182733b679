// rw_demo: builds a graph, prints it, replaces a node and prints it again.
#include <rw/rw.hpp>

#include <cstdio>

namespace {
/// A binary elementwise op on float64 tensors, enough for the demo.
class Binary final : public rw::Op {
 public:
  Binary(std::string name, std::string_view symbol, int prec)
      : name_(std::move(name)), symbol_(symbol), prec_(prec) {}
  std::string_view name() const override { return name_; }
  rw::PrintStyle print_style() const override {
    return {rw::PrintStyle::Kind::Infix, symbol_, prec_};
  }
  rw::ApplyRef make_node(std::span<const rw::Var> in) const override {
    const rw::TypePtr t = in[0]->type();
    return rw::Apply::create(ptr(), in, std::span(&t, 1));
  }

 private:
  std::string name_;
  std::string_view symbol_;
  int prec_;
};
}  // namespace

int main() {
  auto mul = std::make_shared<Binary>("mul", "*", 20);
  auto div = std::make_shared<Binary>("true_div", "/", 20);
  auto vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  rw::Var x = rw::Variable::make(vec, "x"), y = rw::Variable::make(vec, "y");
  rw::Var xy = (*mul)({x, y});
  rw::Var z = (*div)({xy, y});

  rw::FunctionGraph fg({x, y}, {(*mul)({z, x})}, /*clone=*/false);
  std::printf("before: %s\n%s\n", rw::to_infix(fg.outputs()[0]).c_str(),
              rw::debugprint(fg).c_str());
  fg.replace(z, x, "div_cancel: (x * y) / y => x");
  fg.check_integrity();
  std::printf("after:  %s\n%s", rw::to_infix(fg.outputs()[0]).c_str(),
              rw::debugprint(fg).c_str());
  return 0;
}
