// Uses the installed rwgraph the way its docs do: the README's program,
// loading a graph file and rewriting it with the default mode; then checks
// that the installed rule files are the library's embedded ones.
//
//   consumer GRAPH_FILE RULES_DIR
#include <rw/rw.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "rules/embedded.hpp"

namespace {
int failed(const std::string& what) {
  std::cerr << "consumer: " << what << "\n";
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return failed("usage: consumer GRAPH_FILE RULES_DIR");

  // README.md
  auto x = rw::vector("x", rw::f64);
  auto w = rw::shared("w", rw::Tensor::from({0.5, -1.0, 2.0}));
  auto loss = rw::sum(rw::log(1 + rw::exp(x * w)));
  rw::Function f = rw::function({x}, {loss, rw::softmax(x * w)});
  auto [l, p] = f(rw::Tensor::from({1.0, 2.0, 3.0}));
  if (std::abs(l.item<double>() - 7.10348) > 1e-4) return failed("wrong loss " + l.to_string());

  // docs/graph-files.md: load a graph file, rewrite it with the default mode.
  rw::dsl::GraphFile g = rw::load_graph_file(argv[1]);
  rw::FunctionGraph fg = g.function_graph();
  rw::default_mode().rewrite(fg);
  const std::string after = rw::to_infix(fg.outputs()[0]);
  if (after.find("softplus") == std::string::npos) return failed("not rewritten: " + after);

  // The installed rule files are the embedded library, file for file.
  std::size_t files = 0;
  for (const rw::EmbeddedRuleFile& file : rw::standard_rule_files()) {
    const std::filesystem::path path =
        std::filesystem::path(argv[2]) / std::filesystem::path(file.name).filename();
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in || text.str() != file.text) return failed("not installed as embedded: " + path.string());
    ++files;
  }
  std::printf("rwgraph ok %s: %s; %zu rule files\n", rw::version(), after.c_str(), files);
  return 0;
}
