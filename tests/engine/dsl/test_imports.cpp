// Imports: lookup beside the importer and on the search path, files loaded
// once, cycles, missing files, names shared across files, errors in imports.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "engine/dsl/resolver.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;
using rw::test::pt_registry;

namespace {

const std::filesystem::path kData = std::filesystem::path(RW_SOURCE_DIR) / "tests/engine/dsl/data";

LoadResult<RuleModule> load_memory(const std::shared_ptr<MemoryResolver>& files,
                                   std::string_view root) {
  const PredicateRegistry predicates;
  return check_rules(root, pt_registry(), predicates, {files, {}});
}

std::vector<std::string> rule_names(const RuleModule& m) {
  std::vector<std::string> out;
  for (const CheckedRule& r : m.rules) out.push_back(r.name);
  return out;
}

std::vector<std::string> file_names(const RuleModule& m) {
  std::vector<std::string> out;
  for (const SourcePtr& f : m.files) out.push_back(f->name());
  return out;
}

}  // namespace

TEST_CASE("imports are found beside the importer, then on the search path", "[dsl]") {
  const PredicateRegistry predicates;
  const std::string root = (kData / "imports/root.rules").string();
  const RuleModule m = load_rules(root, pt_registry(), predicates, {nullptr, {kData / "search"}});
  CHECK(rule_names(m) == std::vector<std::string>{"add_zero", "mul_one", "neg_neg", "root_rule"});
  REQUIRE(m.files.size() == 4);  // common.rules is imported twice and loaded once
  CHECK(m.files.back()->name() == root);
  CHECK(m.files[1]->name() == (kData / "imports/lib/arith.rules").string());
  CHECK(m.files[2]->name() == (kData / "search/shared.rules").string());
  CHECK(m.find_rule("add_zero")->ruleset == "common");
  CHECK(m.find_rule("mul_one")->tags == std::vector<std::string>{"canonicalize"});
  CHECK(m.is_commutative("add"));

  auto without = check_rules(root, pt_registry(), predicates);
  REQUIRE_FALSE(without.ok());
  REQUIRE(without.diagnostics.size() == 1);
  CHECK(without.diagnostics[0].message ==
        "cannot find import `shared.rules`; looked in `" + (kData / "imports").string() + "`");

  auto missing = check_rules((kData / "nope.rules").string(), pt_registry(), predicates);
  REQUIRE(missing.diagnostics.size() == 1);
  CHECK(missing.diagnostics[0].render() ==
        "error: cannot load rule file `" + (kData / "nope.rules").string() + "`: no such file\n");
}

TEST_CASE("a diamond of imports loads each file once, imports first", "[dsl]") {
  auto files = std::make_shared<MemoryResolver>();
  files->add("a.rules", "import \"b.rules\"\nimport \"c.rules\"\nrule ra: exp(log(x)) => x\n");
  files->add("b.rules", "import \"d.rules\"\nrule rb: x * 1 => x\n");
  files->add("c.rules", "import \"./d.rules\"\nrule rc: x + 0 => x\n");
  files->add("d.rules", "rule rd: -(-x) => x\n");
  auto r = load_memory(files, "a.rules");
  INFO(render(r.diagnostics));
  REQUIRE(r.ok());
  CHECK(rule_names(*r.value) == std::vector<std::string>{"rd", "rb", "rc", "ra"});
  CHECK(file_names(*r.value) ==
        std::vector<std::string>{"d.rules", "b.rules", "c.rules", "a.rules"});
}

TEST_CASE("imports in subfolders resolve relative to the importing file", "[dsl]") {
  auto files = std::make_shared<MemoryResolver>();
  files->add("std/all.rules", "import \"parts/one.rules\"\n");
  files->add("std/parts/one.rules", "import \"../two.rules\"\nrule one: exp(log(x)) => x\n");
  files->add("std/two.rules", "rule two: x * 1 => x\n");
  auto r = load_memory(files, "std/all.rules");
  INFO(render(r.diagnostics));
  REQUIRE(r.ok());
  CHECK(rule_names(*r.value) == std::vector<std::string>{"two", "one"});
  CHECK(file_names(*r.value) ==
        std::vector<std::string>{"std/two.rules", "std/parts/one.rules", "std/all.rules"});
}

TEST_CASE("an import cycle is an error naming the chain", "[dsl]") {
  auto files = std::make_shared<MemoryResolver>();
  files->add("a.rules", "import \"b.rules\"\nrule ra: exp(log(x)) => x\n");
  files->add("b.rules", "import \"c.rules\"\n");
  files->add("c.rules", "import \"a.rules\"\n");
  files->add("self.rules", "import \"self.rules\"\n");
  auto r = load_memory(files, "a.rules");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  const Diagnostic& d = r.diagnostics[0];
  CHECK(d.file->name() == "c.rules");
  CHECK(d.message ==
        "import cycle: `a.rules` imports `b.rules` imports `c.rules` imports `a.rules`");
  REQUIRE(d.notes.size() == 2);
  CHECK(d.notes[0].message == "`c.rules` is imported here");
  CHECK(d.notes[0].file->name() == "b.rules");
  CHECK(d.notes[1].message == "`b.rules` is imported here");
  CHECK(d.notes[1].file->name() == "a.rules");

  auto s = load_memory(files, "self.rules");
  REQUIRE(s.diagnostics.size() == 1);
  CHECK(s.diagnostics[0].message == "import cycle: `self.rules` imports `self.rules`");
}

TEST_CASE("names are shared across the files of one load", "[dsl]") {
  auto files = std::make_shared<MemoryResolver>();
  files->add("a.rules", "import \"b.rules\"\nruleset s tags(x)\nrule same: exp(log(x)) => x\n");
  files->add("b.rules", "ruleset s tags(y)\nrule same: x * 1 => x\n");
  auto r = load_memory(files, "a.rules");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].message ==
        "ruleset `s` was declared with tags(y); a later header may repeat them or leave them out");
  CHECK(r.diagnostics[0].notes[0].file->name() == "b.rules");
  CHECK(r.diagnostics[1].message == "rule `same` is defined twice");
  CHECK(r.diagnostics[1].file->name() == "a.rules");
  CHECK(r.diagnostics[1].notes[0].file->name() == "b.rules");
}

TEST_CASE("an error in an imported file fails the whole load and says where it was imported",
          "[dsl]") {
  auto files = std::make_shared<MemoryResolver>();
  files->add("a.rules", "import \"b.rules\"\nrule ok: exp(log(x)) => x\n");
  files->add("b.rules", "import \"c.rules\"\n");
  files->add("c.rules", "rule bad: lgo(x) => x\n");
  auto r = load_memory(files, "a.rules");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].render() ==
        "c.rules:1:11: error: unknown op `lgo`; did you mean `log`?\n"
        "rule bad: lgo(x) => x\n"
        "          ^~~\n"
        "b.rules:1:8: note: `c.rules` is imported here\n"
        "import \"c.rules\"\n"
        "       ^~~~~~~~~\n"
        "a.rules:1:8: note: `b.rules` is imported here\n"
        "import \"b.rules\"\n"
        "       ^~~~~~~~~\n");
}

TEST_CASE("a missing import is reported at its path", "[dsl]") {
  auto files = std::make_shared<MemoryResolver>();
  files->add("a.rules", "import \"gone.rules\"\n");
  auto r = load_memory(files, "a.rules");
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].render() ==
        "a.rules:1:8: error: cannot find import `gone.rules`; no such file among the embedded "
        "sources\n"
        "import \"gone.rules\"\n"
        "       ^~~~~~~~~~~~\n");
}

TEST_CASE("reading a source stops at the size limit", "[dsl]") {
  namespace fs = std::filesystem;
  std::string why;
  // A device that never ends is refused once it passes the limit, without
  // reading everything first (which ran out of memory).
  if (fs::exists("/dev/zero")) {
    REQUIRE_FALSE(read_file("/dev/zero", why, std::size_t{1} << 20).has_value());
    REQUIRE(why == "`/dev/zero` is too large (more than 1048576 bytes; the limit is 1048576 bytes)");
  }
  // A regular file too large is refused by its size.
  const fs::path big = fs::temp_directory_path() / "rw_test_read_limit.rules";
  {
    std::ofstream out(big, std::ios::binary);
    out << std::string(100, '#');
  }
  REQUIRE_FALSE(read_file(big, why, 99).has_value());
  REQUIRE_THAT(why, Catch::Contains("is too large (100 bytes; the limit is 99 bytes)"));
  const auto exact = read_file(big, why, 100);
  REQUIRE(exact.has_value());
  REQUIRE(exact->size() == 100);
  fs::remove(big);
  REQUIRE(kMaxSourceBytes == std::size_t{1} << 30);
}

TEST_CASE("a chain of imports deeper than the limit is refused where it goes too deep", "[dsl]") {
  // Loading recursed once per import: a chain of 20,000 files overflowed the stack.
  const auto chain = [](std::size_t n) {
    auto files = std::make_shared<MemoryResolver>();
    for (std::size_t i = 0; i < n; ++i)
      files->add("f" + std::to_string(i) + ".rules",
                 i + 1 < n ? "import \"f" + std::to_string(i + 1) + ".rules\"\n" : "");
    return files;
  };
  const auto at_limit = load_memory(chain(kMaxImportDepth), "f0.rules");
  INFO(render(at_limit.diagnostics));
  REQUIRE(at_limit.ok());
  REQUIRE(at_limit.value->files.size() == kMaxImportDepth);

  const auto deeper = load_memory(chain(kMaxImportDepth + 50), "f0.rules");
  REQUIRE_FALSE(deeper.ok());
  REQUIRE(deeper.diagnostics.size() == 1);
  const Diagnostic& d = deeper.diagnostics[0];
  const std::string last = "f" + std::to_string(kMaxImportDepth - 1) + ".rules";
  const std::string next = "f" + std::to_string(kMaxImportDepth) + ".rules";
  CHECK(d.message == "imports nest too deeply: `" + last + "` imports `" + next +
                         "`, which would make a chain of more than " +
                         std::to_string(kMaxImportDepth) + " files");
  REQUIRE(d.file);
  CHECK(d.file->name() == last);
  CHECK(d.location().line == 1);
}

TEST_CASE("an import path with a NUL byte is refused, not cut short", "[dsl]") {
  using namespace std::string_literals;
  auto files = std::make_shared<MemoryResolver>();
  files->add("a", "");
  files->add("root.rules", "import \"a\0b.rules\"\n"s);
  const auto r = load_memory(files, "root.rules");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message == "an import path cannot contain a NUL byte");
  CHECK(r.diagnostics[0].location().line == 1);
  // The file resolver refuses such a path too: the file system would open `a`.
  const FileResolver disk;
  std::string why;
  CHECK_FALSE(disk.resolve("/dev/null\0x"s, nullptr, why).has_value());
  CHECK(why == "the path contains a NUL byte");
}
