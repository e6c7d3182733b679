// Uses the installed rwgraph: builds a tiny graph and checks it.
#include <rw/rw.hpp>

#include <cstdio>

int main() {
  auto x = rw::Variable::make(rw::TensorType::make(rw::f64, {rw::kUnknownDim}), "x");
  rw::FunctionGraph fg({x}, {x});
  fg.check_integrity();
  if (fg.inputs().size() != 1) return 1;
  std::printf("rwgraph ok %s\n", rw::version());
  return 0;
}
