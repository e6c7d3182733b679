// The editor grammars of tools/editor/ (docs/editors.md): each TextMate
// grammar, run line by line with std::regex over every bundled example, gives
// every reserved word (dsl::kKeywords), comment and rule name its scope; the
// Vim syntax files, when a `vim` is on the PATH, name a keyword's group.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "engine/dsl/literals.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  INFO(p.string());
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---------------------------------------------------------------------------
// A JSON reader for the grammar files: objects, arrays, strings, numbers and
// the three words. Object keys keep their order (TextMate reads patterns in
// order).

struct Json;
using JsonObject = std::vector<std::pair<std::string, Json>>;
using JsonArray = std::vector<Json>;

struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<JsonArray>,
               std::shared_ptr<JsonObject>>
      value;

  const Json* find(std::string_view key) const {
    const auto* o = std::get_if<std::shared_ptr<JsonObject>>(&value);
    if (!o) return nullptr;
    for (const auto& [k, v] : **o)
      if (k == key) return &v;
    return nullptr;
  }
  const std::string* string() const { return std::get_if<std::string>(&value); }
  const JsonArray* array() const {
    const auto* a = std::get_if<std::shared_ptr<JsonArray>>(&value);
    return a ? a->get() : nullptr;
  }
  const JsonObject* object() const {
    const auto* o = std::get_if<std::shared_ptr<JsonObject>>(&value);
    return o ? o->get() : nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  Json document() {
    Json v = value();
    space();
    if (i_ != s_.size()) fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    FAIL("JSON: " << what << " at byte " << i_);
    std::abort();  // FAIL throws; this only tells the compiler
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected `") + c + "`");
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }

  Json value() {
    space();
    if (i_ == s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return Json{string()};
    if (word("true")) return Json{true};
    if (word("false")) return Json{false};
    if (word("null")) return Json{nullptr};
    const std::size_t b = i_;
    while (i_ < s_.size() && std::string_view("+-.0123456789eE").find(s_[i_]) != std::string_view::npos)
      ++i_;
    if (b == i_) fail("expected a value");
    return Json{std::stod(std::string(s_.substr(b, i_ - b)))};
  }
  Json object() {
    expect('{');
    auto o = std::make_shared<JsonObject>();
    if (!eat('}')) {
      do {
        space();
        std::string k = string();
        expect(':');
        o->emplace_back(std::move(k), value());
      } while (eat(','));
      expect('}');
    }
    return Json{o};
  }
  Json array() {
    expect('[');
    auto a = std::make_shared<JsonArray>();
    if (!eat(']')) {
      do a->push_back(value());
      while (eat(','));
      expect(']');
    }
    return Json{a};
  }
  std::string string() {
    if (i_ == s_.size() || s_[i_] != '"') fail("expected a string");
    std::string out;
    for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
      if (s_[i_] != '\\') {
        out += s_[i_];
        continue;
      }
      if (++i_ == s_.size()) break;
      switch (s_[i_]) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          const unsigned code = static_cast<unsigned>(std::stoul(std::string(s_.substr(i_ + 1, 4)), nullptr, 16));
          if (code >= 0x80) fail("non-ASCII \\u escape");  // the grammars need none
          out += static_cast<char>(code);
          i_ += 4;
          break;
        }
        default: out += s_[i_];  // `"`, `\`, `/`
      }
    }
    if (i_ == s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// ---------------------------------------------------------------------------
// A TextMate grammar: `match` rules and `begin`/`end` rules with their nested
// `patterns`, `captures`, and `include`s of the repository. Every regex is
// compiled as ECMAScript, so one std::regex cannot read fails the load.

struct Rule {
  std::string name;
  std::optional<std::regex> match, begin, end;
  std::map<std::size_t, std::string> captures, begin_captures, end_captures;
  std::vector<const Rule*> patterns;  // begin/end: what may match inside
};

class Grammar {
 public:
  explicit Grammar(const fs::path& file) : root_(JsonReader(read_text(file)).document()) {
    const std::string* scope = root_.find("scopeName") ? root_.find("scopeName")->string() : nullptr;
    REQUIRE(scope);
    scope_name = *scope;
    top_ = patterns_of(root_);
  }

  std::string scope_name;
  std::size_t regex_count = 0;

  const std::vector<const Rule*>& top() const { return top_; }

 private:
  std::regex compile(const Json& j, std::string_view key) {
    const std::string* text = j.string();
    INFO("`" << key << "` in " << scope_name);
    REQUIRE(text);
    INFO("regex: " << *text);
    ++regex_count;
    try {
      return std::regex(*text, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      FAIL("std::regex refuses it: " << e.what());
      throw;
    }
  }
  std::map<std::size_t, std::string> captures_of(const Json* j) {
    std::map<std::size_t, std::string> out;
    if (!j) return out;
    REQUIRE(j->object());
    for (const auto& [k, v] : *j->object()) {
      const Json* name = v.find("name");
      REQUIRE(name);
      REQUIRE(name->string());
      out[std::stoul(k)] = *name->string();
    }
    return out;
  }
  // The rules a `patterns` list stands for, includes resolved (a repository
  // entry with only `patterns` is a group and is flattened).
  std::vector<const Rule*> patterns_of(const Json& owner) {
    std::vector<const Rule*> out;
    const Json* list = owner.find("patterns");
    if (!list) return out;
    REQUIRE(list->array());
    for (const Json& p : *list->array()) append(p, out);
    return out;
  }
  void append(const Json& p, std::vector<const Rule*>& out) {
    if (const Json* inc = p.find("include")) {
      REQUIRE(inc->string());
      const std::string& ref = *inc->string();
      INFO("include " << ref);
      REQUIRE(ref.size() > 1);
      REQUIRE(ref[0] == '#');
      const Json* repo = root_.find("repository");
      REQUIRE(repo);
      const Json* target = repo->find(ref.substr(1));
      REQUIRE(target);
      if (auto it = by_key_.find(ref); it != by_key_.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
        return;
      }
      std::vector<const Rule*> expanded;
      append(*target, expanded);
      by_key_[ref] = expanded;
      out.insert(out.end(), expanded.begin(), expanded.end());
      return;
    }
    if (!p.find("match") && !p.find("begin")) {  // a group
      for (const Rule* r : patterns_of(p)) out.push_back(r);
      return;
    }
    auto rule = std::make_unique<Rule>();
    Rule& r = *rule;
    rules_.push_back(std::move(rule));
    if (const Json* n = p.find("name")) r.name = *n->string();
    if (const Json* m = p.find("match")) {
      r.match = compile(*m, "match");
      r.captures = captures_of(p.find("captures"));
    } else {
      r.begin = compile(*p.find("begin"), "begin");
      REQUIRE(p.find("end"));
      r.end = compile(*p.find("end"), "end");
      r.begin_captures = captures_of(p.find("beginCaptures"));
      r.end_captures = captures_of(p.find("endCaptures"));
      if (const Json* c = p.find("captures")) r.begin_captures = r.end_captures = captures_of(c);
      r.patterns = patterns_of(p);
    }
    out.push_back(&r);
  }

  Json root_;
  std::vector<std::unique_ptr<Rule>> rules_;
  std::map<std::string, std::vector<const Rule*>> by_key_;
  std::vector<const Rule*> top_;
};

/// The scopes over each byte of each line.
using LineScopes = std::vector<std::vector<std::string>>;

/// Tokenises `text` as a TextMate engine does, line by line: at each point
/// the rule (or the innermost begin rule's `end`) whose match starts first
/// wins, ties to `end` and then to the earlier rule.
std::vector<LineScopes> tokenize(const Grammar& g, const std::string& text) {
  std::vector<LineScopes> lines;
  std::vector<const Rule*> open;  // begin rules not yet ended, across lines
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    LineScopes scopes(line.size());
    auto paint = [&](std::size_t b, std::size_t e, const std::string& name) {
      if (name.empty()) return;
      for (std::size_t k = b; k < e && k < line.size(); ++k) scopes[k].push_back(name);
    };
    auto paint_open = [&](std::size_t b, std::size_t e) {
      for (const Rule* r : open) paint(b, e, r->name);
    };
    auto paint_captures = [&](const std::smatch& m, std::size_t base,
                              const std::map<std::size_t, std::string>& caps) {
      for (const auto& [group, name] : caps)
        if (group < m.size() && m[group].matched)
          paint(base + static_cast<std::size_t>(m.position(group)),
                base + static_cast<std::size_t>(m.position(group) + m.length(group)), name);
    };
    std::size_t pos = 0;
    while (pos <= line.size()) {
      const auto flags = pos == 0 ? std::regex_constants::match_default
                                  : std::regex_constants::match_prev_avail;
      const auto from = line.cbegin() + static_cast<std::ptrdiff_t>(pos);
      std::smatch best;
      const Rule* best_rule = nullptr;
      bool best_is_end = false;
      if (!open.empty()) {
        std::smatch m;
        if (std::regex_search(from, line.cend(), m, *open.back()->end, flags)) {
          best = m;
          best_is_end = true;
        }
      }
      const auto& candidates = open.empty() ? g.top() : open.back()->patterns;
      for (const Rule* r : candidates) {
        std::smatch m;
        if (!std::regex_search(from, line.cend(), m, r->match ? *r->match : *r->begin, flags))
          continue;
        if ((!best_is_end && !best_rule) || m.position(0) < best.position(0)) {
          best = m;
          best_rule = r;
          best_is_end = false;
        }
      }
      if (!best_is_end && !best_rule) break;
      const std::size_t b = pos + static_cast<std::size_t>(best.position(0));
      const std::size_t e = b + static_cast<std::size_t>(best.length(0));
      paint_open(pos, b);
      if (best_is_end) {
        const Rule* r = open.back();
        paint_open(b, e);
        paint_captures(best, pos, r->end_captures);
        open.pop_back();
      } else if (best_rule->match) {
        paint_open(b, e);
        paint(b, e, best_rule->name);
        paint_captures(best, pos, best_rule->captures);
      } else {
        open.push_back(best_rule);
        paint_open(b, e);
        paint_captures(best, pos, best_rule->begin_captures);
      }
      // An empty match moves on by one byte, as TextMate engines do.
      pos = e > b ? e : e + 1;
      if (e == b && b < line.size()) paint_open(b, b + 1);
    }
    if (pos < line.size()) paint_open(pos, line.size());
    lines.push_back(std::move(scopes));
  }
  return lines;
}

bool has_scope(const std::vector<std::string>& scopes, std::string_view prefix) {
  for (const std::string& s : scopes)
    if (s.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

/// Whether every byte of [b, e) has a scope starting with `prefix`.
bool covered(const LineScopes& line, std::size_t b, std::size_t e, std::string_view prefix) {
  for (std::size_t k = b; k < e; ++k)
    if (!has_scope(line[k], prefix)) return false;
  return true;
}

/// The scope a reserved word must get: `inf` and `nan` are numbers.
std::string_view keyword_scope(std::string_view word) {
  return word == "inf" || word == "nan" ? "constant.numeric." : "keyword.";
}

/// What the test finds in a file by itself, without the grammar: reserved
/// words, comments and rule names, with where they stand.
struct Expected {
  struct Span {
    std::size_t line, begin, end;
    std::string text;
  };
  std::vector<Span> keywords, comments, rule_names;
};

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

Expected scan(const std::string& text) {
  Expected out;
  std::istringstream in(text);
  std::string line;
  for (std::size_t n = 0; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
      const char c = line[i];
      if (c == '#') {
        out.comments.push_back({n, i, line.size(), line.substr(i)});
        break;
      }
      if (c == '"') {  // a string: skip it, escapes and all
        for (++i; i < line.size() && line[i] != '"'; ++i)
          if (line[i] == '\\') ++i;
        ++i;
        continue;
      }
      if (c == '%' || c == '?' || (c >= '0' && c <= '9')) {  // graph names, pattern variables, numbers
        for (++i; i < line.size() && (ident_char(line[i]) || line[i] == '.'); ++i) {
        }
        continue;
      }
      if (!ident_start(c)) {
        ++i;
        continue;
      }
      const std::size_t b = i;
      while (i < line.size() && ident_char(line[i])) ++i;
      const std::string word = line.substr(b, i - b);
      if (rw::dsl::is_keyword(word)) out.keywords.push_back({n, b, i, word});
      // `rule NAME`: the word after `rule`, statement-first as the examples write it.
      if (word == "rule" && line.find_first_not_of(" \t") == b) {
        std::size_t k = i;
        while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
        const std::size_t nb = k;
        while (k < line.size() && ident_char(line[k])) ++k;
        if (k > nb) out.rule_names.push_back({n, nb, k, line.substr(nb, k - nb)});
      }
    }
  }
  return out;
}

const fs::path kSource = RW_SOURCE_DIR;
const fs::path kEditor = kSource / "tools/editor";

std::vector<fs::path> examples(std::string_view ext) {
  std::vector<fs::path> out;
  for (const char* dir : {"rules", "examples/rules", "examples"})
    for (const auto& e : fs::directory_iterator(kSource / dir))
      if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string show(const LineScopes& line, std::size_t b) {
  std::string s;
  for (const std::string& x : line[b]) s += (s.empty() ? "" : " ") + x;
  return s.empty() ? "(no scope)" : s;
}

/// Runs `g` over each file and checks what scan() finds; returns the totals
/// so a caller can tell the check was not vacuous.
Expected check_files(const Grammar& g, const std::vector<fs::path>& files) {
  Expected total;
  for (const fs::path& f : files) {
    const std::string text = read_text(f);
    const auto lines = tokenize(g, text);
    const Expected want = scan(text);
    const std::string rel = fs::relative(f, kSource).string();
    for (const auto& k : want.keywords) {
      INFO(rel << ":" << k.line + 1 << ":" << k.begin + 1 << ": `" << k.text << "` has "
                << show(lines[k.line], k.begin));
      CHECK(covered(lines[k.line], k.begin, k.end, keyword_scope(k.text)));
    }
    for (const auto& c : want.comments) {
      INFO(rel << ":" << c.line + 1 << ":" << c.begin + 1 << ": comment has "
                << show(lines[c.line], c.begin));
      CHECK(covered(lines[c.line], c.begin, c.end, "comment.line."));
    }
    for (const auto& r : want.rule_names) {
      INFO(rel << ":" << r.line + 1 << ":" << r.begin + 1 << ": rule name `" << r.text << "` has "
                << show(lines[r.line], r.begin));
      CHECK(covered(lines[r.line], r.begin, r.end, "entity.name.function.rule."));
    }
    total.keywords.insert(total.keywords.end(), want.keywords.begin(), want.keywords.end());
    total.comments.insert(total.comments.end(), want.comments.begin(), want.comments.end());
    total.rule_names.insert(total.rule_names.end(), want.rule_names.begin(), want.rule_names.end());
  }
  return total;
}

/// The scopes over the first occurrence of `needle` in the one-line `text`.
std::vector<std::string> scopes_at(const Grammar& g, const std::string& text, std::string_view needle) {
  const auto lines = tokenize(g, text);
  const std::size_t at = text.find(needle);
  INFO("`" << needle << "` in `" << text << "`");
  REQUIRE(lines.size() == 1);
  REQUIRE(at != std::string::npos);
  // The scopes every byte of the needle shares.
  std::vector<std::string> common = lines[0][at];
  for (std::size_t k = at + 1; k < at + needle.size(); ++k)
    common.erase(std::remove_if(common.begin(), common.end(),
                                [&](const std::string& s) {
                                  return std::find(lines[0][k].begin(), lines[0][k].end(), s) ==
                                         lines[0][k].end();
                                }),
                 common.end());
  return common;
}

/// Whether `needle` in `text` has a scope starting with `prefix`.
bool scoped(const Grammar& g, const std::string& text, std::string_view needle, std::string_view prefix) {
  return has_scope(scopes_at(g, text, needle), prefix);
}

/// The scopes `needle` in `text` has, for a failure message.
std::string found(const Grammar& g, const std::string& text, std::string_view needle) {
  return "`" + std::string(needle) + "` in `" + text + "` has " + show({scopes_at(g, text, needle)}, 0);
}

}  // namespace

// CHECK that `needle` in `text` has (or has not) a scope starting with
// `prefix`, saying the scopes it has when it fails.
#define CHECK_SCOPE(g, text, needle, prefix)    \
  do {                                          \
    INFO(found(g, text, needle));               \
    CHECK(scoped(g, text, needle, prefix));     \
  } while (false)
#define CHECK_NO_SCOPE(g, text, needle, prefix) \
  do {                                          \
    INFO(found(g, text, needle));               \
    CHECK_FALSE(scoped(g, text, needle, prefix)); \
  } while (false)

TEST_CASE("the TextMate grammars compile and scope every reserved word", "[editor]") {
  for (const char* file : {"rwgraph-rules.tmLanguage.json", "rwgraph-graph.tmLanguage.json"}) {
    const Grammar g(kEditor / file);
    INFO(file);
    CHECK(g.regex_count > 20);
    for (std::string_view word : rw::dsl::kKeywords) {
      const std::string w(word);
      CHECK_SCOPE(g, w, w, keyword_scope(word));
      CHECK_SCOPE(g, "x = " + w + " # note", w, keyword_scope(word));
      // Only the whole word: a name that starts or ends with one is a name.
      CHECK_NO_SCOPE(g, w + "s", w, keyword_scope(word));
      CHECK_NO_SCOPE(g, "x_" + w, w, keyword_scope(word));
      CHECK_NO_SCOPE(g, "# " + w, w, keyword_scope(word));
      CHECK_NO_SCOPE(g, "import \"" + w + ".rules\"", w + ".", keyword_scope(word));
    }
  }
}

TEST_CASE("the rules grammar scopes each part of a rule", "[editor]") {
  const Grammar g(kEditor / "rwgraph-rules.tmLanguage.json");
  CHECK(g.scope_name == "source.rwgraph-rules");
  const std::string rule = "rule drop_unit tags(fast_run) priority 2: sum{axis=(0,)}(?x) => x * 1.5e-3 where ndim(x) >= 2";
  CHECK_SCOPE(g, rule, "drop_unit", "entity.name.function.rule.");
  CHECK_SCOPE(g, rule, "tags", "storage.modifier.");
  CHECK_SCOPE(g, rule, "priority", "storage.modifier.");
  CHECK_SCOPE(g, rule, "sum", "entity.name.function.op.");
  CHECK_SCOPE(g, rule, "axis", "variable.parameter.property.");
  CHECK_SCOPE(g, rule, "(0,)", "meta.properties.");
  CHECK_SCOPE(g, rule, "?x", "variable.parameter.pattern.");
  CHECK_SCOPE(g, rule, "=>", "keyword.operator.arrow.");
  CHECK_SCOPE(g, rule, "1.5e-3", "constant.numeric.float.");
  CHECK_SCOPE(g, rule, "where", "keyword.control.");
  CHECK_SCOPE(g, rule, "ndim", "entity.name.function.call.");
  CHECK_SCOPE(g, rule, ">=", "keyword.operator.comparison.");
  CHECK_SCOPE(g, rule, "2", "constant.numeric.integer.");
  CHECK_NO_SCOPE(g, rule, "=>", "keyword.operator.comparison.");
  CHECK_SCOPE(g, "ruleset algebra tags(canonicalize)", "algebra", "entity.name.namespace.");
  CHECK_SCOPE(g, "import \"a\\\"b.rules\"", "\\\"", "constant.character.escape.");
  CHECK_SCOPE(g, "import \"base.rules\"  # shared", "# shared", "comment.line.");
  CHECK_NO_SCOPE(g, "import \"base.rules # not a comment\"", "# not", "comment.line.");
  CHECK_SCOPE(g, "x ** 2", "**", "keyword.operator.arithmetic.");
  CHECK_SCOPE(g, "x12", "12", "variable.other.");  // digits in a name are not a number
}

TEST_CASE("the graph grammar scopes types, names and properties", "[editor]") {
  const Grammar g(kEditor / "rwgraph-graph.tmLanguage.json");
  CHECK(g.scope_name == "source.rwgraph-graph");
  CHECK_SCOPE(g, "input X f64[?, 3]", "X", "variable.other.input.");
  CHECK_SCOPE(g, "input X f64[?, 3]", "f64", "storage.type.");
  CHECK_SCOPE(g, "input X f64[?, 3]", "?", "constant.language.unknown-extent.");
  CHECK_SCOPE(g, "input X f64[?, 3]", "3", "constant.numeric.integer.");
  CHECK_SCOPE(g, "input s csr_f64[?, ?]", "csr_f64", "storage.type.");
  CHECK_SCOPE(g, "input key rng", "rng", "storage.type.");
  CHECK_SCOPE(g, "input n int64", "int64", "storage.type.");
  CHECK_SCOPE(g, "%3 = sum{axis=all}(%2)", "%3", "variable.other.definition.");
  CHECK_SCOPE(g, "%3 = sum{axis=all}(%2)", "%2", "variable.other.graph-name.");
  CHECK_SCOPE(g, "%3 = sum{axis=all}(%2)", "axis", "variable.parameter.property.");
  CHECK_SCOPE(g, "%3 = sum{axis=all}(%2)", "all", "constant.language.");
  CHECK_SCOPE(g, "def softplus_naive(x f64[?]) inline=true {", "softplus_naive", "entity.name.function.def.");
  CHECK_SCOPE(g, "def softplus_naive(x f64[?]) inline=true {", "inline", "variable.parameter.property.");
  CHECK_SCOPE(g, "def softplus_naive(x f64[?]) inline=true {", "true", "constant.language.");
  CHECK_NO_SCOPE(g, "def softplus_naive(x f64[?]) inline=true {", "{", "meta.properties.");
  CHECK_SCOPE(g, "const k f64[2] = [1.0, -inf]", "k", "variable.other.constant.");
  CHECK_SCOPE(g, "const k f64[2] = [1.0, -inf]", "1.0", "constant.numeric.float.");
  CHECK_SCOPE(g, "y = x * 1.", "1.", "constant.numeric.float.");
  CHECK_SCOPE(g, "y = x * .5", ".5", "constant.numeric.float.");
  CHECK_SCOPE(g, "y = x * 2E+2", "2E+2", "constant.numeric.float.");
  // An unclosed `[` or `{` (a syntax error) ends with its line: the next
  // statement is highlighted as a statement.
  const auto lines = tokenize(g, "input x f64[?\nh = sum{axis=0\ninput y f64[3]\n");
  REQUIRE(lines.size() == 3);
  CHECK_FALSE(has_scope(lines[1][0], "meta.type."));
  CHECK(has_scope(lines[2][0], "keyword."));
  CHECK_FALSE(has_scope(lines[2][0], "meta."));
}

TEST_CASE("the TextMate grammars tokenise the bundled examples", "[editor]") {
  const Grammar rules(kEditor / "rwgraph-rules.tmLanguage.json");
  const Grammar graph(kEditor / "rwgraph-graph.tmLanguage.json");
  const auto rule_files = examples(".rules");
  const auto graph_files = examples(".graph");
  REQUIRE(rule_files.size() >= 8);
  REQUIRE(graph_files.size() >= 4);
  const Expected r = check_files(rules, rule_files);
  const Expected gr = check_files(graph, graph_files);
  // The examples do exercise the checks.
  CHECK(r.keywords.size() > 100);
  CHECK(r.comments.size() > 100);
  CHECK(r.rule_names.size() > 50);
  CHECK(gr.keywords.size() > 20);
  CHECK(gr.comments.size() > 5);
}

TEST_CASE("the Vim syntax files name a keyword's group", "[editor]") {
  if (std::system("command -v vim >/dev/null 2>&1") != 0) {
    WARN("vim is not on the PATH: the Vim syntax files are not checked");
    return;
  }
  const fs::path out = fs::temp_directory_path() / ("rw_editor_vim_" + std::to_string(::getpid()) + ".txt");
  struct Case {
    const char* file;
    const char* filetype;
    int line, col;
    const char* group;
  };
  // examples/ofg.rules:5 is `rule axpy_unscaled: ...`; examples/mlp.graph:4 is
  // `input X f64[?, ?]`, line 15 `output mse, penalty`.
  for (const Case& c : {Case{"examples/ofg.rules", "rwrules", 5, 1, "rwStatement"},
                        Case{"examples/ofg.rules", "rwrules", 5, 6, "rwDeclName"},
                        Case{"examples/ofg.rules", "rwrules", 1, 1, "rwComment"},
                        Case{"examples/mlp.graph", "rwgraph", 4, 1, "rwStatement"},
                        Case{"examples/mlp.graph", "rwgraph", 4, 9, "rwType"},
                        Case{"examples/mlp.graph", "rwgraph", 15, 1, "rwStatement"}}) {
    const std::string cmd =
        "cd '" + kSource.string() + "' && vim -Nu NONE -i NONE -es -c 'set rtp^=tools/editor/vim' " +
        "-c 'filetype on' -c 'syntax on' -c 'edit " + c.file + "' " +
        "-c 'call writefile([&filetype, synIDattr(synID(" + std::to_string(c.line) + ", " +
        std::to_string(c.col) + ", 1), \"name\")], \"" + out.string() + "\")' -c 'qa!' </dev/null";
    INFO(cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::istringstream lines(read_text(out));
    std::string filetype, group;
    std::getline(lines, filetype);
    std::getline(lines, group);
    CHECK(filetype == c.filetype);
    CHECK(group == c.group);
  }
  fs::remove(out);
}
