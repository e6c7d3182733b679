// Uses the installed rwgraph the way its docs do, through the four public
// headers: the README's program, loading a graph file and rewriting it with
// the default mode, loading a rule into a database of one's own, unifying
// two terms; then checks that the installed rule files are the library's
// embedded ones.
//
//   consumer GRAPH_FILE RULES_DIR
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <rw/kanren.hpp>
#include <rw/rewrite.hpp>
#include <rw/rules.hpp>
#include <rw/rw.hpp>
#include <sstream>
#include <string>
#include <vector>

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

  // docs/rules-language.md: one rule of one's own, loaded into a database.
  auto db = rw::make_default_db();
  const rw::dsl::LoadedRules mine =
      rw::load_rules(*db, rw::RuleSource::text("mine.rules",
                                               "ruleset mine tags(canonicalize)\n"
                                               "rule cosh_zero: cosh(0) => 1\n"))
          .take();
  if (mine.names() != std::vector<std::string>{"cosh_zero"}) return failed("rule not loaded");

  // docs/unify.md: ?x unifies with 3.
  const rw::Term v = rw::lvar("x");
  if (!rw::unify(v, rw::Term(3))) return failed("?x does not unify with 3");

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
