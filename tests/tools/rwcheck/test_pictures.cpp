// --dot: the Graphviz files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/rwcheck/dot.hpp"
#include "tools/rwcheck/rwcheck_fixtures.hpp"

using rw::test::check_golden;
using rw::test::pt_environment;
using rw::test::rwcheck;
using rw::test::standard_environment;

namespace {

const std::filesystem::path kOut = std::filesystem::path(RW_BINARY_DIR) / "rwcheck_pictures";

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> softplus_args(std::vector<std::string> options) {
  std::vector<std::string> args = {"--rules", "examples/rules"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("examples/softplus.graph");
  return args;
}

}  // namespace

TEST_CASE("an Op is labelled as a graph file calls it", "[rwcheck]") {
  std::filesystem::create_directories(kOut);
  const auto r = rwcheck({"--dot", (kOut / "mlp").string(), "examples/mlp.graph"},
                         standard_environment());
  CHECK(r.status == 0);
  const std::string before = slurp(kOut / "mlp.before.dot");
  // examples/mlp.graph writes `dimshuffle{order=(x, 0)}(b0)`: the same words.
  CHECK(before.find("[label=\"#1 dimshuffle{order=(x, 0)}\"") != std::string::npos);
  CHECK(before.find("(-1") == std::string::npos);
  // Outputs by the names the file gives them.
  CHECK(before.find("out0 [label=\"mse\", shape=doubleoctagon];") != std::string::npos);
  CHECK(before.find("out1 [label=\"penalty\", shape=doubleoctagon];") != std::string::npos);
  // `i` in subtensor's index, as examples/rnn.graph writes `subtensor{index=(i)}`.
  const auto rnn = rwcheck({"--dot", (kOut / "rnn").string(), "examples/rnn.graph"},
                           standard_environment());
  CHECK(rnn.status == 0);
  CHECK(slurp(kOut / "rnn.before.dot").find("\"#4 subtensor{index=(i)}\"") != std::string::npos);
}

TEST_CASE("labels are cut to a bounded width", "[rwcheck]") {
  using rw::check::cut_label;
  CHECK(cut_label("short", 40) == "short");
  CHECK(cut_label("abcdefghij", 10) == "abcdefghij");
  CHECK(cut_label("abcdefghijk", 10) == "abcdefghi…");
  // Characters, not bytes: a UTF-8 sequence is never split.
  CHECK(cut_label("ééééééé", 4) == "ééé…");
}

TEST_CASE("--dot PREFIX writes the graph before and after as two files", "[rwcheck]") {
  std::filesystem::create_directories(kOut);
  const std::string prefix = (kOut / "softplus").string();
  std::filesystem::remove(prefix + ".before.dot");
  std::filesystem::remove(prefix + ".after.dot");
  const auto r = rwcheck(softplus_args({"--dot", prefix}), pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("softplus.before.dot", slurp(prefix + ".before.dot"));
  check_golden("softplus.after.dot", slurp(prefix + ".after.dot"));

  const auto bad = rwcheck(softplus_args({"--dot", "/nonexistent/dir/x"}), pt_environment());
  CHECK(bad.status == 2);
  CHECK(bad.err == "rwcheck: error: --dot: cannot write `/nonexistent/dir/x.before.dot`\n");
}
