// The examples in docs/rules-language.md and docs/graph-files.md are checked:
// every ```rules and ```graph block must load; a ```rules-error or
// ```graph-error block must fail with exactly the diagnostics of the ```text
// block that follows it. A ```rules-into block is loaded into a fresh
// standard rewrite database (and a ```rules-into-error block must fail so).
// A block may be named (```rules file=std.rules) so that other blocks can
// import it. The page's ```cpp examples are the snippets below, verbatim.
#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "engine/graph/printing.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/standard.hpp"
#include "rw/graph_files.hpp"
#include "rw/rules.hpp"
#include "support/doc_snippets.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;
namespace fs = std::filesystem;

namespace {

struct Block {
  std::string info;  // the word after ```
  std::string file;  // from file=NAME, or empty
  std::string text;
  std::size_t line = 0;
};

std::vector<Block> blocks_of(const fs::path& doc) {
  std::string why;
  const auto text = read_file(doc, why);
  REQUIRE(text);
  std::vector<Block> out;
  std::istringstream in(*text);
  std::string line;
  std::size_t n = 0;
  Block* open = nullptr;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      if (open) {
        open = nullptr;
        continue;
      }
      Block b;
      std::istringstream words(line.substr(3));
      words >> b.info;
      std::string w;
      while (words >> w)
        if (w.rfind("file=", 0) == 0) b.file = w.substr(5);
      b.line = n;
      out.push_back(std::move(b));
      open = &out.back();
      continue;
    }
    if (open) open->text += line + "\n";
  }
  REQUIRE(open == nullptr);
  return out;
}

void check_doc(const fs::path& doc, std::size_t min_examples) {
  const std::vector<Block> blocks = blocks_of(doc);
  const PredicateRegistry predicates;
  auto files = std::make_shared<MemoryResolver>();
  for (const Block& b : blocks)
    if (!b.file.empty()) files->add(b.file, b.text);

  std::size_t checked = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    const bool is_into = b.info == "rules-into" || b.info == "rules-into-error";
    const bool is_rules = is_into || b.info == "rules" || b.info == "rules-error";
    const bool is_graph = b.info == "graph" || b.info == "graph-error";
    if (!is_rules && !is_graph) continue;
    const std::string name =
        b.file.empty() ? (is_rules ? "example.rules" : "example.graph") : b.file;
    INFO(doc.filename().string() << " line " << b.line << ":\n" << b.text);
    std::vector<Diagnostic> diagnostics;
    bool ok = false;
    if (is_into) {
      auto db = make_standard_db();
      const auto before = db->selected_names(RewriteQuery{"fast_run"});
      auto r = check_rules_text_into(*db, name, b.text, test::pt_registry(), predicates, {files, {}});
      ok = r.ok();
      diagnostics = std::move(r.diagnostics);
      if (!ok) CHECK(db->selected_names(RewriteQuery{"fast_run"}) == before);
    } else if (is_rules) {
      auto r = check_rules_text(name, b.text, test::pt_registry(), predicates, {files, {}});
      ok = r.ok();
      diagnostics = std::move(r.diagnostics);
    } else {
      auto r = check_graph_text(name, b.text, test::pt_registry(), graph_file_options());
      ok = r.ok();
      diagnostics = std::move(r.diagnostics);
    }
    const std::string got = render(diagnostics);
    INFO("Output:\n" << got);
    if (b.info.ends_with("-error")) {
      REQUIRE(i + 1 < blocks.size());
      REQUIRE(blocks[i + 1].info == "text");
      CHECK_FALSE(ok);
      CHECK(got == blocks[i + 1].text);
    } else {
      CHECK(ok);
      CHECK(diagnostics.empty());
    }
    ++checked;
  }
  CHECK(checked >= min_examples);
}

}  // namespace

TEST_CASE("the rules language reference's examples load as documented", "[dsl]") {
  check_doc(fs::path(RW_SOURCE_DIR) / "docs/rules-language.md", 10);
}

TEST_CASE("the graph file reference's examples load as documented", "[dsl]") {
  check_doc(fs::path(RW_SOURCE_DIR) / "docs/graph-files.md", 3);
}

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/engine/dsl/test_docs.cpp";
const std::string kRulesPage = RW_SOURCE_DIR "/docs/rules-language.md";

void require_on_page(const std::string& name) {
  const std::string code = test::source_snippet(kThisFile, name);
  const std::vector<std::string> blocks = test::markdown_cpp_blocks(kRulesPage);
  INFO("docs/rules-language.md must contain this ```cpp block (snippet `" << name << "`):\n"
                                                                           << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

// The PyTensor-named test ops as the page's examples call them.
Var op(const char* name, std::vector<Var> inputs) {
  return (*test::pt_registry().make(name))(inputs);
}
Var mul(Var a, Var b) { return op("mul", {std::move(a), std::move(b)}); }
Var div(Var a, Var b) { return op("true_div", {std::move(a), std::move(b)}); }
Var exp(Var a) { return op("exp", {std::move(a)}); }

}  // namespace

TEST_CASE("docs/rules-language.md: loading rules into a database", "[dsl]") {
  const OpRegistry& ops = test::pt_registry();
  const auto vec = TensorType::make(DType::Float64, {kUnknownDim});
  Var x = Variable::make(vec, "x"), y = Variable::make(vec, "y"), z = Variable::make(vec, "z");
  // [doc:load-into]
  auto db = rw::make_standard_db();
  const rw::RuleSource source = rw::RuleSource::text("simplify.rules", R"(
    ruleset simplify tags(canonicalize, fast_run)
    rule div_cancel_y: (x * y) / y => x
    rule div_cancel_x: (x * y) / x => y
  )");
  const rw::dsl::LoadedRules loaded = rw::load_rules(*db, source, {.ops = &ops}).take();
  // loaded.names() == {"div_cancel_y", "div_cancel_x"}
  // loaded.per_group() == {{"canonicalize", 2}}

  rw::FunctionGraph fg({x, y, z}, {div(mul(div(mul(x, y), y), z), x)});
  rw::Mode::fast_run(db).rewrite(fg);
  // rw::to_infix(fg.outputs()[0]) == "z"

  // What `rwcheck --why-not` needs: the rule's pattern, and for a node the
  // first subpattern or guard that failed.
  const rw::dsl::CompiledRule* rule = loaded.find("div_cancel_y");
  rw::FunctionGraph other({x, y}, {div(exp(x), y)});
  const std::optional<std::string> why = rule->why_not(other, *other.outputs()[0]->owner());
  // rule->pattern() == "x * y / y"
  // *why == "input 0 of `true_div`: expected `mul`, got `exp`"
  // [/doc:load-into]
  CHECK(loaded.names() == std::vector<std::string>{"div_cancel_y", "div_cancel_x"});
  CHECK(loaded.per_group() == std::map<std::string, std::size_t>{{"canonicalize", 2}});
  CHECK(rw::to_infix(fg.outputs()[0]) == "z");
  CHECK(rule->pattern() == "x * y / y");
  REQUIRE(why);
  CHECK(*why == "input 0 of `true_div`: expected `mul`, got `exp`");
  require_on_page("load-into");
}

TEST_CASE("docs/rules-language.md: a predicate that reads types only", "[dsl]") {
  rw::dsl::PredicateRegistry predicates;
  // [doc:predicate-reads]
  predicates.add("matrix", 1, "a tensor of rank 2",
                 [](std::span<const rw::Var> args, const rw::FunctionGraph*) {
                   const rw::TensorType* t = args[0]->tensor_type();
                   return t && t->ndim() == 2;
                 },
                 rw::dsl::PredicateReads::Types);
  // [/doc:predicate-reads]
  require_on_page("predicate-reads");
  auto db = make_standard_db();
  const LoadedRules l = load_rules_text_into(
      *db, "m.rules", "ruleset s tags(canonicalize)\nrule r: exp(log(x)) => x where matrix(x)\n",
      test::pt_registry(), predicates);
  CHECK(l.find("r")->rewriter->depth() == 1);  // not kAnyDepth: it reads types only
  const Var m = Variable::make(TensorType::make(DType::Float64, {kUnknownDim, 4}), "m");
  const Var v = Variable::make(TensorType::make(DType::Float64, {4}), "v");
  FunctionGraph fg({m, v}, {exp(op("log", {m})), exp(op("log", {v}))});
  CHECK_FALSE(l.find("r")->why_not(fg, *fg.outputs()[0]->owner()));
  CHECK(*l.find("r")->why_not(fg, *fg.outputs()[1]->owner()) ==
        "`matrix(x)` is false (`x` is f64[4])");
}
