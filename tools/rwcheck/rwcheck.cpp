// rwcheck: the run command (rewrite a graph and report), and dispatch to
// lint and verify.
#include "tools/rwcheck/rwcheck.hpp"

#include <algorithm>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/dsl/graph_file.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/suggest.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/mode.hpp"
#include "rw/rewrite.hpp"
#include "rw/rules.hpp"
#include "rw/standard_rules.hpp"
#include "tools/rwcheck/cli.hpp"
#include "tools/rwcheck/debug_run.hpp"
#include "tools/rwcheck/dot.hpp"
#include "tools/rwcheck/html_report.hpp"
#include "tools/rwcheck/inner_graphs.hpp"
#include "tools/rwcheck/json.hpp"
#include "tools/rwcheck/lint.hpp"
#include "tools/rwcheck/profile_report.hpp"
#include "tools/rwcheck/provenance.hpp"
#include "tools/rwcheck/rule_sources.hpp"
#include "tools/rwcheck/style.hpp"
#include "tools/rwcheck/verify.hpp"
#include "tools/rwcheck/why_not.hpp"

namespace rw::check {

namespace {

// What the text report prints of a big graph without --full: the output
// stays small whatever the graph, and says what it left out.
constexpr std::size_t kMaxTreeLines = 200;
constexpr std::size_t kMaxOutputLines = 100;
constexpr std::string_view kFullNote = " (--full prints them all)";

std::string format_outputs(const std::vector<std::string>& exprs, bool full) {
  std::string out;
  const std::size_t shown = full ? exprs.size() : std::min(exprs.size(), kMaxOutputLines);
  for (std::size_t k = 0; k < shown; ++k) out += fmt::format("  output {}: {}\n", k, exprs[k]);
  if (shown < exprs.size())
    out += fmt::format("  … {} more outputs{}\n", exprs.size() - shown, kFullNote);
  return out;
}

DebugPrintOptions tree_options(const Options& o) {
  DebugPrintOptions p;
  if (!o.full) {
    p.max_lines = kMaxTreeLines;
    p.cut_note = kFullNote;
  }
  return p;
}

std::string describe_sources(const RuleSet& set) {
  std::size_t n = 0;
  for (const dsl::LoadedRules& l : set.loads) n += l.size();
  if (set.sources.empty()) return "no rules";
  return fmt::format("{} rule{} from {}", n, n == 1 ? "" : "s", fmt::join(set.sources, ", "));
}

std::vector<std::string> output_exprs(const FunctionGraph& fg) {
  std::vector<std::string> out;
  for (const Var& v : fg.outputs()) out.push_back(expr_of(*v));
  return out;
}

std::string nodes_text(std::size_t n) {
  return fmt::format("{} node{}", n, n == 1 ? "" : "s");
}

std::string node_ref(const std::optional<NodeId>& id) {
  return id ? fmt::format("#{} ", *id) : std::string();
}

std::string ids(const std::vector<NodeId>& v) {
  std::string out;
  for (const NodeId id : v) out += fmt::format("{}#{}", out.empty() ? "" : " ", id);
  return out;
}

/// --print-after PASS and --print-after-all: the graph, as `after:` prints
/// it, each time a chosen pass ends; and the passes that ran, to name an
/// unknown one.
class PassPrinter final : public TraceListener {
 public:
  PassPrinter(const FunctionGraph& fg, const Options& o) : fg_(fg), o_(o) {}
  bool wants_attempts() const override { return false; }
  void on_event(const TraceEvent& e) override {
    if (e.kind != TraceKind::PassEnded) return;
    const std::string pass(e.pass);
    if (std::find(ran_.begin(), ran_.end(), pass) == ran_.end()) ran_.push_back(pass);
    if (!o_.print_after_all &&
        std::find(o_.print_after.begin(), o_.print_after.end(), pass) == o_.print_after.end())
      return;
    sections_.push_back(fmt::format("after pass {}: {}\n", pass, nodes_text(fg_.num_nodes())) +
                        format_outputs(output_exprs(fg_), o_.full) +
                        print_graph(fg_.outputs(), o_.expand_ofg, tree_options(o_)));
  }
  const std::vector<std::string>& sections() const { return sections_; }
  /// The error for a --print-after pass that never ran, if any.
  std::optional<std::string> unknown_pass() const {
    for (const std::string& want : o_.print_after)
      if (std::find(ran_.begin(), ran_.end(), want) == ran_.end()) {
        std::string msg = fmt::format("--print-after: no pass `{}` ran; the passes were {}", want,
                                      fmt::join(ran_, ", "));
        if (const auto c = closest_name(want, ran_)) msg += fmt::format("; did you mean `{}`?", *c);
        return msg;
      }
    return std::nullopt;
  }

 private:
  const FunctionGraph& fg_;
  const Options& o_;
  std::vector<std::string> ran_;
  std::vector<std::string> sections_;
};

/// --attempts: every attempt that failed, in order, with its reason; the
/// node by its provenance id (the one --trace prints).
class AttemptRecorder final : public TraceListener {
 public:
  explicit AttemptRecorder(const Provenance& p) : p_(p) {}
  bool wants_attempts() const override { return true; }
  void on_event(const TraceEvent& e) override {
    if (e.kind == TraceKind::Tried) ++tried_;
    if (e.kind != TraceKind::Failed) return;
    const auto id = e.node ? p_.id_of(*e.node) : std::nullopt;
    lines_.push_back(fmt::format("  {} / {} on {}: {}\n", e.pass, e.rewriter,
                                 id ? fmt::format("#{}", *id) : std::string("a node"),
                                 e.message));
  }
  std::string text(bool full) const {
    std::string out = fmt::format("attempts: {} tried, {} failed\n", tried_, lines_.size());
    const std::size_t shown = full ? lines_.size() : std::min(lines_.size(), kMaxTreeLines);
    for (std::size_t i = 0; i < shown; ++i) out += lines_[i];
    if (shown < lines_.size())
      out += fmt::format("  … {} more failed attempts{}\n", lines_.size() - shown, kFullNote);
    return out;
  }

 private:
  const Provenance& p_;
  std::size_t tried_ = 0;
  std::vector<std::string> lines_;
};

std::string format_trace(const Provenance& p) {
  std::string out = fmt::format("trace: {} replacement{}\n", p.firings().size(),
                                p.firings().size() == 1 ? "" : "s");
  std::size_t i = 0;
  for (const Firing& f : p.firings()) {
    out += fmt::format("  [{}] {} / {}\n", ++i, f.pass, f.rule);
    out += fmt::format("        {}{}\n", node_ref(f.before_node), f.before);
    out += fmt::format("     => {}{}\n", node_ref(f.after_node), f.after);
    if (!f.created.empty() || !f.removed.empty()) {
      out += "        ";
      if (!f.created.empty()) out += "created " + ids(f.created);
      if (!f.created.empty() && !f.removed.empty()) out += "; ";
      if (!f.removed.empty()) out += "removed " + ids(f.removed);
      out += '\n';
    }
  }
  return out;
}

/// --explain OUTPUT: the replacements that made output `k`: those that
/// created a node it is computed from or changed such a node's input, and,
/// back from each, those that made the node it replaced; printed oldest first
/// as --trace prints them.
std::string format_explain(const Provenance& p, const FunctionGraph& fg, std::size_t k,
                           const std::string& expr) {
  std::string out = fmt::format("explain output {}: {}\n", k, expr);
  // Which firing created each node.
  std::unordered_map<NodeId, std::size_t> created_in;
  for (std::size_t i = 0; i < p.firings().size(); ++i) {
    const Firing& f = p.firings()[i];
    if (f.op_change) continue;
    for (const NodeId id : f.created) created_in.emplace(id, i);
    if (f.after_node) created_in.emplace(*f.after_node, i);
  }
  // Which firings changed an input of each node.
  std::unordered_map<NodeId, std::vector<std::size_t>> changed_inputs_of;
  for (std::size_t i = 0; i < p.firings().size(); ++i)
    for (const NodeId user : p.firings()[i].users) changed_inputs_of[user].push_back(i);
  std::set<std::size_t> chosen;
  std::unordered_set<NodeId> seen;
  std::vector<NodeId> work;
  const auto choose = [&](std::size_t i) {
    if (!chosen.insert(i).second) return;
    if (const auto& before = p.firings()[i].before_node) work.push_back(*before);
  };
  const auto visit = [&](const Variable& v) {
    if (const Apply* o = v.owner())
      if (const auto id = p.id_of(*o)) work.push_back(*id);
  };
  visit(*fg.outputs()[k]);
  while (!work.empty()) {
    const NodeId id = work.back();
    work.pop_back();
    if (!seen.insert(id).second) continue;
    for (const Var& in : p.node(id).node->inputs()) visit(*in);
    if (const auto it = created_in.find(id); it != created_in.end()) choose(it->second);
    if (const auto it = changed_inputs_of.find(id); it != changed_inputs_of.end())
      for (const std::size_t i : it->second) choose(i);
  }
  // Changes of Op (the in-place pass) on the nodes followed.
  for (std::size_t i = 0; i < p.firings().size(); ++i) {
    const Firing& f = p.firings()[i];
    if (f.op_change && f.after_node && seen.contains(*f.after_node)) chosen.insert(i);
  }
  if (chosen.empty()) return out + "  no replacement made a node of it: its nodes are the graph's as loaded\n";
  for (const std::size_t i : chosen) {
    const Firing& f = p.firings()[i];
    out += fmt::format("  [{}] {} / {}\n", i + 1, f.pass, f.rule);
    out += fmt::format("        {}{}\n", node_ref(f.before_node), f.before);
    out += fmt::format("     => {}{}\n", node_ref(f.after_node), f.after);
  }
  return out;
}

Json why_not_json(const WhyNotReport& r) {
  static constexpr const char* kStatus[] = {"fired", "failed", "removed", "not_run"};
  Json nodes = Json::array();
  for (const WhyNotEntry& e : r.entries) {
    Json node = {{"node", e.node},
                 {"expr", e.expr},
                 {"status", kStatus[static_cast<int>(e.status)]},
                 {"reason", e.reason}};
    if (e.status == WhyNotStatus::RemovedBy) {
      node["by"] = e.by;
      node["replaced"] = e.replaced;
    }
    if (e.status == WhyNotStatus::RemovedBy || e.status == WhyNotStatus::Fired)
      node["pass"] = e.pass;
    nodes.push_back(std::move(node));
  }
  return {{"rule", r.rule},         {"op", r.op},       {"group", r.group},
          {"selected", r.selected}, {"fired", r.fired}, {"nodes", std::move(nodes)}};
}

// Diagnostics as the rules language renders them; one about no file (a rule
// file that cannot be opened) is rwcheck's own error, and says so.
std::string render_diagnostics(std::span<const dsl::Diagnostic> diagnostics) {
  std::string out;
  for (const dsl::Diagnostic& d : diagnostics) out += (d.file ? "" : "rwcheck: ") + d.render();
  return out;
}

// Every name and tag `--include`/`--exclude` can select: the entries' names
// and tags at every level of the database.
void collect_tags(const RewriteDB& db, std::vector<std::string>& out) {
  for (const RewriteDB::Entry& e : db.entries()) {
    out.push_back(e.name);
    out.insert(out.end(), e.tags.begin(), e.tags.end());
    if (const auto* sub = std::get_if<std::shared_ptr<RewriteDB>>(&e.item); sub && *sub)
      collect_tags(**sub, out);
  }
}

// Refuses a tag no entry has: it would select nothing, silently.
std::optional<std::string> unknown_tag(const RewriteDB& db, const Options& o) {
  std::vector<std::string> known{db.name()};
  collect_tags(db, known);
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  const auto check = [&](const std::vector<std::string>& tags,
                         std::string_view option) -> std::optional<std::string> {
    for (const std::string& t : tags) {
      if (std::binary_search(known.begin(), known.end(), t)) continue;
      std::string msg = fmt::format("{}: no entry of the rewrite database is named or tagged `{}`",
                                    option, t);
      if (const auto c = closest_name(t, known)) msg += fmt::format("; did you mean `{}`?", *c);
      return msg;
    }
    return std::nullopt;
  };
  if (auto m = check(o.include, "--include")) return m;
  return check(o.exclude, "--exclude");
}

// The version of every JSON object rwcheck prints (docs/rwcheck.md): raised
// when a key changes meaning or goes, not when one is added.
constexpr int kJsonSchema = 1;

// `text` split at its line breaks (a final one ends the last line).
std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    out.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// A diagnostic as JSON: where, what, and its notes.
Json diagnostic_json(const dsl::Diagnostic& d, std::string_view kind) {
  static constexpr const char* kSeverity[] = {"error", "note", "warning"};
  Json json = {{"severity", kSeverity[static_cast<int>(d.severity)]}};
  if (!kind.empty()) json["kind"] = kind;
  if (d.file) {
    const dsl::LineCol at = d.location();
    json["file"] = d.file->name();
    json["line"] = static_cast<std::size_t>(at.line);
    json["column"] = static_cast<std::size_t>(at.column);
  }
  json["message"] = d.message;
  Json notes = Json::array();
  for (const dsl::Diagnostic& n : d.notes) notes.push_back(diagnostic_json(n, ""));
  json["notes"] = std::move(notes);
  return json;
}

// Writes `text` to `path`, replacing the file; false when it cannot.
bool write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  return (file << text) && file.flush();
}

// What the pictures call each output: the name the graph file binds it to
// (`output loss`), else its expression as loaded.
std::vector<std::string> output_labels(const dsl::GraphFile& file,
                                       const std::vector<std::string>& exprs) {
  std::vector<std::string> labels = exprs;
  for (std::size_t k = 0; k < file.outputs.size() && k < labels.size(); ++k)
    for (const auto& [name, var] : file.names)
      if (var == file.outputs[k]) {
        labels[k] = name;
        break;
      }
  return labels;
}

int bad_input(std::ostream& err, const std::string& message) {
  err << "rwcheck: error: " << message << "\n";
  return kExitBadInput;
}

// The graph file's defs as JSON: each OpFromGraph the graph uses, its
// parameters, inner outputs and how many nodes call it before and after.
Json defs_json(const std::vector<const OpFromGraph*>& ops, const std::vector<std::size_t>& before,
               const FunctionGraph& after) {
  Json defs = Json::array();
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const OpFromGraph& op = *ops[k];
    Json params = Json::array(), outputs = Json::array();
    for (const Var& v : op.inner_inputs())
      params.push_back(fmt::format("{} {}", v->name(), v->type()->to_string()));
    for (const Var& v : op.inner_outputs()) outputs.push_back(expr_of(*v));
    defs.push_back({{"name", std::string(op.name())},
                    {"inline", op.is_inline()},
                    {"params", std::move(params)},
                    {"outputs", std::move(outputs)},
                    {"nodes_before", before[k]},
                    {"nodes_after", count_nodes(after, op)}});
  }
  return defs;
}

int run_graph(const Options& o, std::ostream& out, std::ostream& err, const CheckEnvironment& env) {
  // The graph first: rules may name its defs, which are registered as ops
  // for them (in a copy of the registry).
  const std::string graph_name = o.graph == "-" ? "<stdin>" : o.graph;
  dsl::LoadResult<dsl::GraphFile> graph;
  if (o.graph == "-") {
    std::string why;
    std::optional<std::string> text = env.read_stdin ? env.read_stdin(why) : std::nullopt;
    if (!text)
      return bad_input(err, fmt::format("cannot read the graph from standard input: {}",
                                        env.read_stdin ? why : "no standard input"));
    graph = dsl::check_graph_text(graph_name, std::move(*text), *env.ops, env.graph_options);
  } else {
    graph = dsl::check_graph(o.graph, *env.ops, env.graph_options);
  }
  if (!graph.ok()) {
    err << render_diagnostics(graph.diagnostics);
    return kExitBadInput;
  }
  OpRegistry ops_with_defs;
  CheckEnvironment env_with_defs;
  const CheckEnvironment* use = &env;
  if (!graph.value->defs.empty()) {
    ops_with_defs = *env.ops;
    for (const dsl::GraphDef& d : graph.value->defs)
      if (auto ofg = std::dynamic_pointer_cast<const OpFromGraph>(d.op))
        register_op_from_graph(ops_with_defs, std::move(ofg));
    env_with_defs = env;
    env_with_defs.ops = &ops_with_defs;
    use = &env_with_defs;
  }
  // --rules replaces the built-in rules; --add-rules adds to either.
  std::vector<std::string> files = rule_files(o.rules);
  const std::vector<std::string> added = rule_files(o.add_rules);
  files.insert(files.end(), added.begin(), added.end());
  RuleSetLoad load = load_rule_set(*use, files, /*use_builtin=*/o.rules.empty());
  if (!load.diagnostics.empty()) {
    err << render_diagnostics(load.diagnostics);
    return kExitBadInput;
  }
  RuleSet& rules = load.set;

  const dsl::CompiledRule* why_rule = nullptr;
  if (o.why_not) {
    why_rule = rules.find(*o.why_not);
    if (!why_rule) {
      std::vector<std::string> names;
      for (const RuleRef& r : rules.rules()) names.push_back(r.rule->rule->name);
      std::string msg =
          fmt::format("--why-not: no rule `{}` in {}", *o.why_not, describe_sources(rules));
      if (const auto c = closest_name(*o.why_not, names)) msg += fmt::format("; did you mean `{}`?", *c);
      return bad_input(err, msg);
    }
  }

  if (const auto m = unknown_tag(*rules.db, o)) return bad_input(err, *m);
  std::optional<Mode> mode;
  try {
    mode = Mode::named(o.mode, rules.db).including(o.include).excluding(o.exclude);
    if (o.strict) mode = mode->strict();
  } catch (const RewriteError& e) {
    return bad_input(err, fmt::format("--mode: {}", e.what()));
  }

  FunctionGraph fg = graph.value->function_graph();
  const std::vector<const OpFromGraph*> defs = op_from_graphs(fg.outputs());
  std::vector<std::size_t> def_nodes_before;
  for (const OpFromGraph* op : defs) def_nodes_before.push_back(count_nodes(fg, *op));

  auto pass_printer = std::make_shared<PassPrinter>(fg, o);
  // The firings' expressions are printed by --trace, --json and --html only.
  auto provenance = std::make_shared<Provenance>(
      why_rule ? why_rule->rule->name : "",
      /*exprs=*/o.trace || o.json || !o.explain.empty() || o.html);
  fg.attach_feature(provenance);
  Trace trace;
  trace.subscribe(provenance);
  if (o.print_after_all || !o.print_after.empty()) trace.subscribe(pass_printer);
  auto attempts = std::make_shared<AttemptRecorder>(*provenance);
  if (o.attempts) trace.subscribe(attempts);
  RewriteProfile profile;
  // --html shows the profile too.
  const bool profiled = o.profile || o.html;
  RewriteContext ctx{.trace = &trace, .profile = profiled ? &profile : nullptr};

  const std::size_t nodes_before = fg.num_nodes();
  const std::vector<std::string> before = output_exprs(fg);
  const std::vector<std::string> labels = output_labels(*graph.value, before);
  const std::string before_title = "before: " + nodes_text(nodes_before);
  const std::string dot_before =
      o.dot || o.html ? dot_graph(fg, *provenance, "before", before_title, labels) : std::string();

  PassReport report;
  try {
    report = mode->rewrite(fg, ctx);
  } catch (const Error& e) {
    // A rewriter error is recorded and skipped by the drivers; what reaches
    // here is a pass that failed as a whole.
    err << "rwcheck: error: rewriting failed: " << e.what() << "\n";
    return kExitFindings;
  }
  fg.detach_feature(*provenance);
  if (const auto m = pass_printer->unknown_pass()) return bad_input(err, *m);
  for (const std::size_t k : o.explain)
    if (k >= fg.outputs().size())
      return bad_input(err, fmt::format("--explain: the graph has {} output{} (0 to {}), not {}",
                                        fg.outputs().size(), fg.outputs().size() == 1 ? "" : "s",
                                        fg.outputs().size() - 1, k));
  const std::size_t nodes_after = fg.num_nodes();
  const std::vector<std::string> after = output_exprs(fg);

  std::optional<WhyNotReport> why;
  if (why_rule) why = explain_why_not(*why_rule, fg, *provenance, *mode);
  std::optional<DebugRun> debugged;
  if (o.debug_mode)
    debugged = debug_run(graph.value->inputs, graph.value->outputs, *mode, o.seed);
  std::optional<ProfileSummary> summary;
  if (profiled)
    summary =
        summarize_profile(profile, rules, rules.db->selected_names(mode->query()), *provenance);

  const std::string heading =
      fmt::format("graph {}: mode {}, {}", graph_name, mode->name(), describe_sources(rules));
  const std::string after_title = "after: " + nodes_text(nodes_after);
  const std::string dot_after =
      o.dot || o.html ? dot_graph(fg, *provenance, "after", after_title, labels) : std::string();
  if (o.dot) {
    for (const auto& [suffix, text] : {std::pair{".before.dot", &dot_before},
                                       std::pair{".after.dot", &dot_after}}) {
      const std::string path = *o.dot + suffix;
      if (!write_file(path, *text)) return bad_input(err, fmt::format("--dot: cannot write `{}`", path));
    }
  }
  if (o.html) {
    const HtmlPage page = html_page({.heading = heading,
                                     .before = {before_title, dot_before},
                                     .after = {after_title, dot_after},
                                     .trace = format_trace(*provenance),
                                     .profile = format_profile(*summary, !o.no_times)},
                                    env.graphviz);
    if (!write_file(*o.html, page.html))
      return bad_input(err, fmt::format("--html: cannot write `{}`", *o.html));
    if (!page.why_no_svg.empty())
      err << "rwcheck: warning: --html: " << page.why_no_svg
          << "; the page shows the graphs as Graphviz text\n";
  }

  if (o.json) {
    // Defs a rule introduced are listed too, after those of the graph.
    std::vector<const OpFromGraph*> all_defs = defs;
    std::vector<std::size_t> all_before = def_nodes_before;
    for (const OpFromGraph* op : op_from_graphs(fg.outputs()))
      if (std::find(all_defs.begin(), all_defs.end(), op) == all_defs.end()) {
        all_defs.push_back(op);
        all_before.push_back(0);
      }
    Json events = Json::array();
    std::size_t i = 0;
    for (const Firing& f : provenance->firings())
      events.push_back({{"index", ++i},
                        {"pass", f.pass},
                        {"rule", f.rule},
                        {"before", {{"node", number_or_null(f.before_node)}, {"expr", f.before}}},
                        {"after", {{"node", number_or_null(f.after_node)}, {"expr", f.after}}},
                        {"created", f.created},
                        {"removed", f.removed}});
    Json json = {{"schema", kJsonSchema},
                 {"graph", graph_name},
                 {"mode", mode->name()},
                 {"query", mode->query().to_string()},
                 {"rule_files", rules.sources},
                 {"nodes_before", nodes_before},
                 {"nodes_after", nodes_after},
                 {"before", before},
                 {"after", after},
                 {"defs", defs_json(all_defs, all_before, fg)},
                 {"complete", report.ok()},
                 {"problems", lines_of(report.problems())},
                 {"events", std::move(events)}};
    if (why) json["why_not"] = why_not_json(*why);
    if (o.profile) json["profile"] = profile_json(*summary, !o.no_times);
    if (debugged)
      json["debug_mode"] = {{"ok", debugged->ok},
                            {"arguments", debugged->arguments},
                            {"finding", debugged->finding}};
    out << json_text(json);
  } else {
    out << heading << "\n";
    out << fmt::format("before: {}\n", nodes_text(nodes_before));
    out << format_outputs(before, o.full);
    if (o.trace) out << format_trace(*provenance);
    if (o.attempts) out << attempts->text(o.full);
    for (const std::string& section : pass_printer->sections()) out << section;
    for (const std::size_t k : o.explain) out << format_explain(*provenance, fg, k, after[k]);
    out << fmt::format("after: {}\n", nodes_text(nodes_after));
    out << format_outputs(after, o.full);
    out << print_graph(fg.outputs(), o.expand_ofg, tree_options(o));
    if (why) out << format_why_not(*why);
    if (o.profile) out << format_profile(*summary, !o.no_times);
    if (debugged && debugged->ok)
      out << fmt::format("debug mode: no finding (seed {}: {})\n", o.seed, debugged->arguments);
    else if (debugged)
      out << fmt::format("debug mode: {}\n", debugged->finding);
    if (!report.ok()) {
      const std::string problems = report.problems();
      out << "rewriting stopped early:\n" << problems << (problems.ends_with('\n') ? "" : "\n");
    }
  }
  if (!report.ok()) return kExitFindings;
  if (why && why->fired == 0) return kExitFindings;
  if (debugged && !debugged->ok) return kExitFindings;
  return kExitOk;
}

// --show-program RULE: what the rule compiled to, from the rules a run would
// load (--rules replaces the built-in ones, --add-rules adds to either).
int run_show_program(const Options& o, std::ostream& out, std::ostream& err,
                     const CheckEnvironment& env) {
  std::vector<std::string> files = rule_files(o.rules);
  const std::vector<std::string> added = rule_files(o.add_rules);
  files.insert(files.end(), added.begin(), added.end());
  if (files.empty() && !env.load_builtin)
    throw CliError("`--show-program` needs rule files (--rules): there are no built-in rules");
  RuleSetLoad load = load_rule_set(env, files, /*use_builtin=*/o.rules.empty());
  if (!load.diagnostics.empty()) {
    err << render_diagnostics(load.diagnostics);
    return kExitBadInput;
  }
  const dsl::CompiledRule* rule = load.set.find(*o.show_program);
  if (!rule) {
    std::vector<std::string> names;
    for (const RuleRef& r : load.set.rules()) names.push_back(r.rule->rule->name);
    std::string msg = fmt::format("--show-program: no rule `{}` in {}", *o.show_program,
                                  describe_sources(load.set));
    if (const auto c = closest_name(*o.show_program, names)) msg += fmt::format("; did you mean `{}`?", *c);
    return bad_input(err, msg);
  }
  const dsl::CheckedRule& checked = *rule->rule;
  const dsl::LineCol at = checked.file->location(checked.span.begin);
  const std::string where = fmt::format("{}:{}:{}", checked.file->name(), at.line, at.column);
  const std::string listing = rule->rewriter->program_listing();
  if (o.json) {
    Json json = {{"schema", kJsonSchema}, {"command", "show-program"}};
    json["rule"] = checked.name;
    json["text"] = checked.to_string();
    json["where"] = where;
    json["group"] = rule->group;
    json["tags"] = rule->tags;
    json["program"] = lines_of(listing);
    out << json_text(json);
  } else {
    out << fmt::format("{}\n  {}\n  in group `{}`", where, checked.to_string(), rule->group);
    if (!rule->tags.empty()) out << fmt::format(" (tags {})", fmt::join(rule->tags, ", "));
    out << "\n" << listing;
  }
  return kExitOk;
}

// The rules lint and verify check: the files given, or the built-in rules.
RuleSetLoad load_for_check(const Options& o, const CheckEnvironment& env) {
  const std::string_view command = o.command == Command::Lint ? "lint" : "verify";
  if (o.rules.empty() && !env.load_builtin)
    throw CliError(fmt::format(
        "`rwcheck {}` needs rule files or directories (there are no built-in rules)", command));
  return load_rule_set(env, rule_files(o.rules), /*use_builtin=*/o.rules.empty());
}

// The start of the object lint and verify print: the schema, the command,
// the files.
Json rules_json(std::string_view command, const RuleSet& rules) {
  return {{"schema", kJsonSchema}, {"command", command}, {"rule_files", rules.sources}};
}

int run_lint(const Options& o, std::ostream& out, std::ostream& err, const CheckEnvironment& env) {
  RuleSetLoad load = load_for_check(o, env);
  // A file with errors (an unknown op among them) loads nothing: its rules
  // cannot be checked, so there is no count of them to print.
  if (!load.diagnostics.empty()) {
    err << render_diagnostics(load.diagnostics);
    return kExitBadInput;
  }
  const std::vector<LintFinding> findings = lint_rules(load.set);
  std::size_t warnings = 0;
  for (const LintFinding& f : findings) warnings += f.diagnostic.severity == dsl::Severity::Warning;
  std::size_t n = 0;
  for (const dsl::LoadedRules& l : load.set.loads) n += l.size();
  if (o.json) {
    Json json = rules_json("lint", load.set);
    json["rules_checked"] = n;
    json["findings"] = warnings;
    Json diagnostics = Json::array();
    for (const LintFinding& f : findings) diagnostics.push_back(diagnostic_json(f.diagnostic, f.kind));
    json["diagnostics"] = std::move(diagnostics);
    out << json_text(json);
  } else {
    for (const LintFinding& f : findings) out << f.diagnostic.render();
    out << fmt::format("{} rule{} checked, {} finding{}\n", n, n == 1 ? "" : "s", warnings,
                       warnings == 1 ? "" : "s");
  }
  return warnings ? kExitFindings : kExitOk;
}

int run_verify(const Options& o, std::ostream& out, std::ostream& err,
               const CheckEnvironment& env) {
  RuleSetLoad load = load_for_check(o, env);
  if (!load.diagnostics.empty()) {
    err << render_diagnostics(load.diagnostics);
    return kExitBadInput;
  }
  if (o.only_rule && !load.set.find(*o.only_rule)) {
    std::vector<std::string> names;
    for (const RuleRef& r : load.set.rules()) names.push_back(r.rule->rule->name);
    std::string msg =
        fmt::format("--rule: no rule `{}` in {}", *o.only_rule, describe_sources(load.set));
    if (const auto c = closest_name(*o.only_rule, names)) msg += fmt::format("; did you mean `{}`?", *c);
    return bad_input(err, msg);
  }
  const std::vector<RuleVerdict> verdicts =
      verify_rules(load.set, env, {.trials = o.trials, .seed = o.seed}, o.only_rule.value_or(""));
  if (o.json) {
    static constexpr const char* kStatus[] = {"ok", "failed", "skipped"};
    std::size_t counts[3] = {};
    Json json = rules_json("verify", load.set);
    json["seed"] = o.seed;
    Json rules = Json::array();
    for (const RuleVerdict& v : verdicts) {
      ++counts[static_cast<int>(v.kind)];
      rules.push_back({{"rule", v.rule},
                       {"status", kStatus[static_cast<int>(v.kind)]},
                       {"trials", v.trials},
                       {"details", lines_of(v.details)}});
    }
    json["rules"] = std::move(rules);
    json["verified"] = counts[0];
    json["failed"] = counts[1];
    json["skipped"] = counts[2];
    out << json_text(json);
  } else {
    out << format_verdicts(verdicts);
  }
  for (const RuleVerdict& v : verdicts)
    if (v.kind == RuleVerdict::Kind::Counterexample) return kExitFindings;
  return kExitOk;
}

int run_command(std::span<const std::string> args, std::ostream& out, std::ostream& err,
                const CheckEnvironment& env) {
  try {
    const Options o = parse_args(args);
    switch (o.command) {
      case Command::Help:
        out << help_text();
        return kExitOk;
      case Command::Version: {
        const std::optional<std::filesystem::path> dir = standard_rules_dir();
        out << fmt::format("rwcheck {}\nstandard rule files: {}\n", version(),
                           dir ? dir->string() : "not installed (the built-in copy is used)");
        return kExitOk;
      }
      case Command::Run:
        return o.show_program ? run_show_program(o, out, err, env) : run_graph(o, out, err, env);
      case Command::Lint:
        return run_lint(o, out, err, env);
      case Command::Verify:
        return run_verify(o, out, err, env);
    }
  } catch (const CliError& e) {
    err << "rwcheck: error: " << e.what() << "\n";
    err << "run `rwcheck --help` for usage\n";
    return kExitBadInput;
  } catch (const InputError& e) {
    return bad_input(err, e.what());
  } catch (const std::bad_alloc&) {
    // Inputs are bounded (file sizes, folding, graph growth), but what they
    // describe may still not fit in this machine's memory: say so, do not abort.
    err << "rwcheck: error: out of memory (the input needs more memory than is available)\n";
    return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace

int run_rwcheck(std::span<const std::string> args, std::ostream& out, std::ostream& err,
                const CheckEnvironment& env) {
  if (!env.color_out && !env.color_err && env.utf8) return run_command(args, out, err, env);
  bool json = false;
  try {
    json = parse_args(args).json;
  } catch (const std::exception&) {
    // run_command reports it.
  }
  std::ostringstream o, e;
  const int status = run_command(args, o, e, env);
  const auto styled = [&](std::string text, bool color) {
    if (!env.utf8) text = to_ascii(text);
    return color ? colorize(text) : text;
  };
  out << (json ? o.str() : styled(o.str(), env.color_out));
  err << styled(e.str(), env.color_err);
  return status;
}

}  // namespace rw::check
