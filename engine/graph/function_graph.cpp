// FunctionGraph on a Boost.Graph adjacency list.
//
// Vertices are Apply nodes, root variables (inputs and constants) and one
// output vertex; an edge is one input slot, from the vertex that computes the
// variable to the vertex that uses it. Clients are out-edges.
//
// Cycle checks on replacement use order labels: every node carries a 64-bit
// position in a topological order, with wide gaps so that new nodes fit between
// their inputs and their users. Replacing `old` by `new` can only close a cycle
// if some client of `old` is an ancestor of `new`; when every existing node
// `new` is built from has a smaller label than every client of `old`, that is
// impossible and no search is needed. Otherwise a search backwards from `new`,
// bounded to nodes whose label is not smaller than the clients', settles it.
// Labels that no longer fit are recomputed with Boost's topological_sort, lazily.
#include "engine/graph/function_graph.hpp"

#include <algorithm>
#include <bit>
#include <exception>
#include <limits>
#include <list>
#include <unordered_set>

#include <boost/container/small_vector.hpp>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <fmt/format.h>

#include "engine/graph/detail/node_pool.hpp"
#include "engine/graph/detail/scratch_pool.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"

namespace rw::detail {
/// Container selector for the per-vertex edge lists: most nodes have one or two
/// inputs and clients, so keep two edges inline instead of allocating.
struct InlineEdgesS {};
/// Container selector for the vertex list and the graph's list of edges:
/// std::list nodes from the graph's NodePool.
struct PooledListS {};
}  // namespace rw::detail

namespace boost {
template <class V> struct container_gen<rw::detail::PooledListS, V> {
  using type = std::list<V, rw::detail::PoolAllocator<V>>;
};
template <class V> struct container_gen<rw::detail::InlineEdgesS, V> {
  using type = boost::container::small_vector<V, 2>;
};
template <> struct parallel_edge_traits<rw::detail::InlineEdgesS> {
  using type = allow_parallel_edge_tag;
};
namespace container {
// Found by argument-dependent lookup from Boost.Graph's container dispatch.
template <class T, std::size_t N, class A, class O>
graph_detail::vector_tag container_category(const small_vector<T, N, A, O>&) {
  return {};
}
template <class T, std::size_t N, class A, class O>
graph_detail::unstable_tag iterator_stability(const small_vector<T, N, A, O>&) {
  return {};
}
}  // namespace container
namespace graph_detail {
template <class T, std::size_t N, class A, class O>
struct container_traits<boost::container::small_vector<T, N, A, O>> {
  using category = vector_tag;
  using iterator_stability = unstable_tag;
};
}  // namespace graph_detail
}  // namespace boost

namespace rw {
namespace detail {

enum class VertexKind : std::uint8_t { Node, Root, Outputs };

struct VertexData {
  VertexKind kind = VertexKind::Node;
  ApplyRef node;  // kind Node: keeps the node alive while it is in the graph
  Var root;       // kind Root
  bool is_input = false;
  // The depth-first sort's colour, by epoch (see FGraphImpl::topo_vertices).
  std::uint32_t topo_mark = 0;
};

struct EdgeData {
  std::uint32_t out_index;  // which output of the source the edge carries
  std::uint32_t slot;       // which input of the target (or output of the graph)
  std::uint32_t out_pos;    // where the edge sits in its source's out-edge list
};

using BGraph = boost::adjacency_list<InlineEdgesS, PooledListS, boost::bidirectionalS,
                                     VertexData, EdgeData, boost::no_property, PooledListS>;
using Vertex = BGraph::vertex_descriptor;
using StoredVertex = BGraph::stored_vertex;
static_assert(sizeof(Vertex) == sizeof(void*), "list vertex descriptors are pointers");

inline constexpr std::uint64_t kNoUpper = std::numeric_limits<std::uint64_t>::max();

/// The vertex of each root variable (inputs and constants) in the graph: an
/// open-addressing table (linear probing, backward-shift deletion) keyed by
/// address, so that a constant coming and going costs no allocation. Lookup
/// only; never iterated, so its order does not matter.
class RootIndex {
 public:
  /// The vertex of `v`, or null_vertex.
  Vertex find(const Variable* v) const {
    if (slots_.empty()) return BGraph::null_vertex();
    for (std::size_t i = home(v);; i = (i + 1) & mask_) {
      if (!slots_[i].key) return BGraph::null_vertex();
      if (slots_[i].key == v) return slots_[i].vertex;
    }
  }
  bool contains(const Variable* v) const { return find(v) != BGraph::null_vertex(); }
  /// Adds `v` (not already there).
  void insert(const Variable* v, Vertex vertex) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(v);
    while (slots_[i].key) i = (i + 1) & mask_;
    slots_[i] = {v, vertex};
    ++size_;
  }
  /// Removes `v` (which is there).
  void erase(const Variable* v) {
    std::size_t i = home(v);
    while (slots_[i].key != v) i = (i + 1) & mask_;
    for (std::size_t j = (i + 1) & mask_; slots_[j].key; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = {};
    --size_;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    const Variable* key = nullptr;
    Vertex vertex = nullptr;
  };
  std::size_t home(const Variable* v) const {
    return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(v) * 0x9E3779B97F4A7C15ULL) >>
                                    shift_);
  }
  void grow() {
    const std::size_t cap = slots_.empty() ? 16 : 2 * slots_.size();
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
    size_ = 0;
    for (const Slot& s : old)
      if (s.key) insert(s.key, s.vertex);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

struct FGraphImpl {
  FunctionGraph* self = nullptr;
  // Vertices, their list nodes and edges come from the pool, which therefore
  // outlives the graph (declared first, destroyed last).
  NodePool pool;
  mutable BGraph g;
  Vertex out_vertex{};
  std::vector<Var> inputs;
  std::vector<Var> outputs;
  RootIndex roots;
  std::size_t n_nodes = 0;
  std::vector<std::shared_ptr<Feature>> features;
  // Order labels (see the top of this file).
  mutable bool labels_dirty = false;
  mutable std::uint64_t next_label = 0;
  mutable std::uint64_t gap = std::uint64_t{1} << 32;
  // The nodes in topological order, kept until the graph changes: passes of
  // a pipeline that change nothing share one sort.
  mutable std::vector<Apply*> topo_nodes;
  mutable bool topo_valid = false;
  // The depth-first search's buffers, kept between sorts.
  struct TopoFrame {
    Vertex v;
    std::size_t next;
  };
  mutable std::vector<Vertex> topo_post;
  mutable std::uint32_t topo_epoch = 0;  // the last sort's black
  mutable std::vector<TopoFrame> topo_stack;

  struct Change {
    Client client;
    Var old_var;
    Var new_var;
  };
  ScratchPool<std::vector<Change>> journals;

  FGraphImpl() {
    g.m_vertices = decltype(g.m_vertices)(PoolAllocator<void*>(&pool));
    g.m_edges = BGraph::EdgeContainer(BGraph::EdgeContainer::allocator_type(&pool));
  }
  ~FGraphImpl() {
    g.m_edges.clear();
    while (!g.m_vertices.empty()) free_vertex(static_cast<Vertex>(g.m_vertices.back()));
  }
  FGraphImpl(const FGraphImpl&) = delete;
  FGraphImpl& operator=(const FGraphImpl&) = delete;

  // Vertices are made and freed here rather than by boost::add_vertex and
  // remove_vertex, which would take each from operator new; the rest of
  // Boost.Graph sees an ordinary adjacency list.
  Vertex new_vertex(VertexData&& d) {
    auto* sv = new (pool.allocate(sizeof(StoredVertex))) StoredVertex();
    sv->m_property = std::move(d);
    sv->m_position = g.m_vertices.insert(g.m_vertices.end(), sv);
    topo_valid = false;
    return sv;
  }
  /// Frees a vertex that has no edges left.
  void free_vertex(Vertex v) {
    auto* sv = static_cast<StoredVertex*>(v);
    g.m_vertices.erase(sv->m_position);
    sv->~StoredVertex();
    pool.deallocate(sv, sizeof(StoredVertex));
    topo_valid = false;
  }

  static Vertex vertex_of(const Apply* a) { return static_cast<Vertex>(a->vertex_); }
  bool holds(const Apply* a) const { return a->fgraph_ == this && a->vertex_ != nullptr; }

  /// The vertex computing `v`, or null_vertex when `v` is not in the graph.
  Vertex producer(const Variable& v) const {
    if (const Apply* o = v.owner()) return holds(o) ? vertex_of(o) : BGraph::null_vertex();
    return roots.find(&v);
  }
  bool contains(const Variable& v) const { return producer(v) != BGraph::null_vertex(); }
  static std::uint64_t label_of(const Variable& v) {
    return v.owner() ? v.owner()->label_ : 0;  // roots come before every node
  }

  // Edges are added and removed only through these two, which keep every
  // edge's `out_pos` current. Removing an edge then costs the target's
  // in-degree (a node's arity) instead of a scan of the source's clients:
  // Boost's remove_edge searches the source's out-edge list, which for a
  // variable with thousands of uses made rewriting quadratic.
  void add_edge(Vertex u, Vertex v, std::uint32_t out_index, std::uint32_t slot) {
    const auto pos = static_cast<std::uint32_t>(g.out_edge_list(u).size());
    boost::add_edge(u, v, EdgeData{out_index, slot, pos}, g);
    topo_valid = false;
  }
  using EdgeIter = BGraph::EdgeContainer::iterator;
  void erase_edge(EdgeIter e) {
    auto& iel = in_edge_list(g, e->m_target);
    for (auto i = iel.begin(); i != iel.end(); ++i)
      if (i->get_iter() == e) {
        iel.erase(i);
        break;
      }
    erase_out_edge(e);
  }
  /// Removes `e` from its source's out-edges and from the graph's edges; its
  /// target's in-edge list is the caller's.
  void erase_out_edge(EdgeIter e) {
    const Vertex u = e->m_source;
    topo_valid = false;
    auto& oel = g.out_edge_list(u);
    const std::uint32_t pos = e->get_property().out_pos;
    g.m_edges.erase(e);
    if (pos + 1 != oel.size()) {
      oel[pos] = std::move(oel.back());
      oel[pos].get_iter()->get_property().out_pos = pos;
    }
    oel.pop_back();
  }

  Vertex add_root_vertex(const Var& v, bool is_input) {
    VertexData d;
    d.kind = VertexKind::Root;
    d.root = v;
    d.is_input = is_input;
    const Vertex vx = new_vertex(std::move(d));
    roots.insert(v.get(), vx);
    return vx;
  }

  void add_node_vertex(Apply* a) {
    VertexData d;
    d.kind = VertexKind::Node;
    d.node = ApplyRef(a);
    const Vertex vx = new_vertex(std::move(d));
    a->vertex_ = vx;
    a->fgraph_ = this;
    for (std::uint32_t i = 0; i < a->n_inputs_; ++i) {
      const Variable& in = *a->inputs_[i];
      add_edge(producer(in), vx, in.index(), i);
    }
    ++n_nodes;
  }

  /// Takes a node with no clients out of the graph (the caller holds it).
  void drop_node_vertex(Apply* node) {
    const Vertex p = vertex_of(node);
    remove_all_in_edges(p);
    free_vertex(p);
    node->vertex_ = nullptr;
    node->fgraph_ = nullptr;
    --n_nodes;
  }

  /// What importing a variable adds: nodes not yet in the graph (inputs
  /// before users, claimed for this graph but without vertices), constants
  /// that were not in it (their root vertices are added at once, which is
  /// what makes them met only once), and the nodes of the graph they are
  /// built from, whose order labels bound the new nodes' labels from below.
  struct Import {
    std::vector<Apply*> nodes;
    std::vector<Var> constants;
    std::vector<Apply*> frontier;
    std::vector<std::pair<Apply*, std::uint32_t>> stack;
    void clear() {
      nodes.clear();
      constants.clear();
      frontier.clear();
      stack.clear();
    }
  };
  ScratchPool<Import> imports;

  /// Fills `out` with what importing `var` (not in the graph) adds. Throws
  /// when `var` needs a missing input or a node of another graph, leaving
  /// the graph as it was.
  void collect_new(const Var& var, Import& out) {
    auto enter = [&](Variable* v) {
      Apply* o = v->owner();
      if (!o) {
        if (roots.contains(v)) return;
        if (v->is_constant()) {
          out.constants.push_back(v->ref());
          add_root_vertex(out.constants.back(), false);
          return;
        }
        abandon(out);
        throw MissingInputError(fmt::format(
            "{} is needed but is neither an input of the graph nor a constant", describe(*v)));
      }
      if (o->fgraph_ == this) {  // in the graph, or already met in this walk
        if (o->vertex_) out.frontier.push_back(o);
        return;
      }
      if (o->fgraph_) {
        abandon(out);
        throw Error(fmt::format("{} belongs to another FunctionGraph; clone it first",
                                describe(*v)));
      }
      o->fgraph_ = this;
      out.stack.emplace_back(o, 0);
    };
    enter(var.get());
    while (!out.stack.empty()) {
      auto& [node, next] = out.stack.back();
      if (next < node->n_inputs_) {
        Variable* in = node->inputs_[next++].get();
        enter(in);
        continue;
      }
      out.nodes.push_back(node);
      out.stack.pop_back();
    }
  }

  /// Undoes a collect_new that will not be imported: releases the claimed
  /// nodes and removes the constants' root vertices.
  void abandon(Import& imp) {
    for (Apply* a : imp.nodes) a->fgraph_ = nullptr;
    for (const auto& [a, next] : imp.stack) a->fgraph_ = nullptr;
    for (const Var& c : imp.constants) {
      free_vertex(roots.find(c.get()));
      roots.erase(c.get());
    }
    imp.clear();
  }

  /// Adds the collected nodes, with labels strictly between lo and hi, and
  /// tells the features.
  void commit(const Import& imp, std::string_view reason, std::uint64_t lo, std::uint64_t hi) {
    const std::uint64_t k = imp.nodes.size();
    if (hi == kNoUpper) {
      for (Apply* a : imp.nodes) a->label_ = (next_label += gap);
    } else if (hi > lo && hi - lo > k) {
      const std::uint64_t step = (hi - lo) / (k + 1);
      std::uint64_t l = lo;
      for (Apply* a : imp.nodes) a->label_ = (l += step);
    } else {
      labels_dirty = true;  // no room: relabel before the next check that needs labels
    }
    for (Apply* a : imp.nodes) add_node_vertex(a);
    // A listener that refuses a node refuses the import: the nodes come out
    // again, and those who heard a node come in hear it go.
    std::size_t i = 0, j = 0;
    try {
      for (; i < imp.nodes.size(); ++i)
        for (j = 0; j < features.size(); ++j)
          tell(*features[j], [&](Feature& f) { f.on_import(*self, *imp.nodes[i], reason); });
    } catch (...) {
      uncommit(imp, i, j, reason);
      throw;
    }
  }

  /// Undoes a commit whose listeners refused node `i` at feature `j`: removes
  /// the nodes, users first, and the constants the import brought.
  void uncommit(const Import& imp, std::size_t i, std::size_t j, std::string_view reason) {
    const std::string why = "rollback: " + std::string(reason);
    const Undoing undo(*this);
    const std::exception_ptr earlier = undo_error;
    for (std::size_t k = imp.nodes.size(); k-- > 0;) {
      Apply* node = imp.nodes[k];
      ApplyRef keep(node);  // the vertex's reference goes away below
      const std::size_t heard = k < i ? features.size() : k == i ? j : 0;
      for (std::size_t f = 0; f < heard; ++f)
        tell(*features[f], [&](Feature& ft) { ft.on_prune(*self, *node, why); });
      drop_node_vertex(node);
    }
    for (const Var& c : imp.constants) {
      free_vertex(roots.find(c.get()));
      roots.erase(c.get());
    }
    undo_error = earlier;  // the refusal is what the caller reports
  }

  // While an undo runs, a listener's exception cannot stop it: the first is
  // kept in undo_error and reported once the graph is as it was.
  bool undoing = false;
  std::exception_ptr undo_error;
  struct Undoing {
    FGraphImpl& m;
    bool was;
    explicit Undoing(FGraphImpl& impl) : m(impl), was(std::exchange(impl.undoing, true)) {}
    ~Undoing() { m.undoing = was; }
    Undoing(const Undoing&) = delete;
    Undoing& operator=(const Undoing&) = delete;
  };
  template <class Call>
  void tell(Feature& f, Call&& call) {
    if (!undoing) return call(f);
    try {
      call(f);
    } catch (...) {
      if (!undo_error) undo_error = std::current_exception();
    }
  }
  template <class Call>
  void tell_all(Call&& call) {
    for (const auto& f : features) tell(*f, call);
  }

  /// Imports `var`; new nodes get labels strictly between lo and hi.
  void import_var(const Var& var, std::string_view reason, std::uint64_t lo, std::uint64_t hi) {
    if (contains(*var)) return;
    auto imp = imports.lease();
    collect_new(var, *imp);
    commit(*imp, reason, lo, hi);
  }

  void remove_in_edge(Vertex target, std::uint32_t slot) {
    for (const auto& stored : in_edge_list(g, target))
      if (stored.get_iter()->get_property().slot == slot) {
        erase_edge(stored.get_iter());
        return;
      }
    throw IntegrityError(fmt::format("no edge for slot {} (graph corrupted)", slot));
  }

  // From the back, without a search: a node with n inputs goes in O(n), not
  // O(n^2), which mattered once canonical sums had dozens of inputs.
  void remove_all_in_edges(Vertex target) {
    auto& iel = in_edge_list(g, target);
    while (!iel.empty()) {
      const EdgeIter e = iel.back().get_iter();
      iel.pop_back();
      erase_out_edge(e);
    }
  }

  /// Removes what `var` was the last use of, users before what they use.
  ScratchPool<std::vector<Var>> var_lists;

  /// True when `v` is in the graph, has no use left, and is not an input.
  bool unused(const Variable& v) const {
    const Vertex p = producer(v);
    return p != BGraph::null_vertex() && boost::out_degree(p, g) == 0 &&
           (v.owner() || !g[p].is_input);
  }

  /// Removes what `var` was the last use of, users before what they use. A
  /// variable is queued only once its last use is gone, which keeps the order
  /// of a queue of every input and spares the handles of inputs still in use.
  void prune_if_unused(const Var& var, std::string_view reason) {
    if (!unused(*var)) return;
    auto lease = var_lists.lease();
    std::vector<Var>& work = *lease;
    work.push_back(var);
    while (!work.empty()) {
      Var v = std::move(work.back());
      work.pop_back();
      if (!unused(*v)) continue;  // met twice (`x * x`): already removed
      const Vertex p = producer(*v);
      if (Apply* node = v->owner()) {
        ApplyRef keep(node);  // the vertex's reference goes away below
        tell_all([&](Feature& f) { f.on_prune(*self, *node, reason); });
        drop_node_vertex(node);
        for (std::uint32_t i = 0; i < node->n_inputs_; ++i)
          if (unused(*node->inputs_[i])) work.push_back(node->inputs_[i]);
      } else {
        roots.erase(v.get());
        free_vertex(p);
      }
    }
  }

  void change_input(const Client& c, const Var& new_var, std::string_view reason,
                    std::vector<Change>* journal, std::uint64_t lo, std::uint64_t hi) {
    Var old_var = c.node ? c.node->inputs_[c.slot] : outputs[c.slot];
    if (old_var == new_var) return;
    import_var(new_var, reason, lo, hi);
    const Vertex target = c.node ? vertex_of(c.node) : out_vertex;
    remove_in_edge(target, c.slot);
    if (c.node) c.node->inputs_[c.slot] = new_var;
    else outputs[c.slot] = new_var;
    add_edge(producer(*new_var), target, new_var->index(), c.slot);
    if (journal) journal->push_back({c, old_var, new_var});
    prune_if_unused(old_var, reason);
    tell_all([&](Feature& f) { f.on_change_input(*self, c, old_var, new_var, reason); });
  }

  void check_types(const Var& old_var, const Var& new_var) const {
    if (old_var->type() != new_var->type() && !old_var->type()->is_super(*new_var->type()))
      throw ReplacementError(fmt::format(
          "type mismatch: {} has type {}, but its replacement {} has type {}", describe(*old_var),
          old_var->type()->to_string(), describe(*new_var), new_var->type()->to_string()));
  }

  /// Makes each of `clients` (the uses of `old_var`) use `new_var`: imports
  /// what `new_var` needs — one walk finds the new nodes and the existing
  /// nodes they are built from — then changes the inputs. Throws, changing
  /// nothing, when `new_var` needs what the graph cannot give or using it in
  /// `clients` would close a cycle; a later failure is undone by the caller
  /// through the journal.
  void replace_uses(const Var& old_var, const Var& new_var, const ClientList& clients,
                    std::string_view reason, std::vector<Change>* journal) {
    if (clients.empty()) return;  // an unused input: nothing to point at new_var
    if (labels_dirty) relabel();
    std::uint64_t hi = kNoUpper;
    for (const Client& c : clients)
      if (c.node) hi = std::min(hi, c.node->label_);
    auto lease = imports.lease();
    Import& imp = *lease;
    if (contains(*new_var)) {
      if (new_var->owner()) imp.frontier.push_back(new_var->owner());
    } else {
      collect_new(new_var, imp);
    }
    std::uint64_t lo = 0;
    for (const Apply* a : imp.frontier) lo = std::max(lo, a->label_);
    if (hi != kNoUpper && lo >= hi) {
      try {
        check_acyclic(old_var, new_var, clients, imp.frontier, hi);
      } catch (...) {
        abandon(imp);
        throw;
      }
    }
    commit(imp, reason, lo, hi);
    for (const Client& c : clients) change_input(c, new_var, reason, journal, lo, hi);
  }

  /// When labels overlap: searches backwards from the frontier, among nodes
  /// labelled at least `hi`, for a client of `old_var`; throws on finding one.
  void check_acyclic(const Var& old_var, const Var& new_var, const ClientList& clients,
                     const std::vector<Apply*>& frontier, std::uint64_t hi) {
    std::unordered_set<const Apply*> targets;
    for (const Client& c : clients)
      if (c.node) targets.insert(c.node);
    std::unordered_set<const Apply*> seen;
    std::vector<Apply*> stack = frontier;
    while (!stack.empty()) {
      Apply* a = stack.back();
      stack.pop_back();
      if (a->label_ < hi || !seen.insert(a).second) continue;
      if (targets.contains(a))
        throw ReplacementError(fmt::format(
            "replacing {} with {} would create a cycle: {} would be computed from its own output",
            describe(*old_var), describe(*new_var), a->op().to_string()));
      for (const Var& in : a->inputs())
        if (in->owner() && holds(in->owner())) stack.push_back(in->owner());
    }
    labels_dirty = true;  // no cycle, but the new edges go against the labels
  }

  /// Undoes the journal, whatever the listeners do; returns what the first
  /// listener that threw while hearing it said, or an empty string.
  std::string rollback(std::vector<Change>& journal, std::string_view reason) {
    const std::string why = "rollback: " + std::string(reason);
    {
      const Undoing undo(*this);
      for (auto it = journal.rbegin(); it != journal.rend(); ++it)
        change_input(it->client, it->old_var, why, nullptr, 0, kNoUpper);
    }
    labels_dirty = true;
    return take_undo_error();
  }

  std::string take_undo_error() {
    std::exception_ptr e = std::exchange(undo_error, nullptr);
    if (!e) return {};
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      return ex.what();
    } catch (...) {
      return "an exception that is not a std::exception";
    }
  }

  /// Every vertex, in the order of Boost's topological_sort (reverse
  /// postorder of a depth-first search along out-edges, started from each
  /// vertex in vertex order) — the same algorithm without the generic
  /// machinery, which cost as much as a pass. Throws boost::not_a_dag.
  /// The result lives in a buffer kept for the next sort.
  const std::vector<Vertex>& topo_vertices() const {
    std::vector<Vertex>& post = topo_post;
    post.clear();
    post.reserve(boost::num_vertices(g));
    // Colours by epoch: a mark below this sort's grey is white, grey is on
    // the stack, grey + 1 is done. A new sort moves the epoch on instead of
    // whitening every vertex first, which on a large graph is a pass over
    // memory the cache no longer holds.
    if (topo_epoch > std::numeric_limits<std::uint32_t>::max() - 2) {
      for (auto [it, end] = boost::vertices(g); it != end; ++it) g[*it].topo_mark = 0;
      topo_epoch = 0;
    }
    const std::uint32_t gray = topo_epoch + 1, black = topo_epoch + 2;
    topo_epoch = black;
    std::vector<TopoFrame>& stack = topo_stack;
    stack.clear();
    for (auto [it, end] = boost::vertices(g); it != end; ++it) {
      if (g[*it].topo_mark >= gray) continue;
      g[*it].topo_mark = gray;
      stack.push_back({*it, 0});
      while (!stack.empty()) {
        TopoFrame& f = stack.back();
        const auto& out = g.out_edge_list(f.v);
        if (f.next < out.size()) {
          const Vertex t = out[f.next++].get_target();
          const std::uint32_t c = g[t].topo_mark;
          if (c < gray) {
            g[t].topo_mark = gray;
            stack.push_back({t, 0});
          } else if (c == gray) {
            throw boost::not_a_dag();
          }
        } else {
          g[f.v].topo_mark = black;
          post.push_back(f.v);
          stack.pop_back();
        }
      }
    }
    std::reverse(post.begin(), post.end());
    return post;
  }

  /// The nodes in topological order (cached until the graph changes).
  const std::vector<Apply*>& topo_order() const {
    if (!topo_valid) {
      topo_nodes.clear();
      topo_nodes.reserve(n_nodes);
      for (Vertex v : topo_vertices())
        if (g[v].kind == VertexKind::Node) topo_nodes.push_back(g[v].node.get());
      topo_valid = true;
    }
    return topo_nodes;
  }

  void relabel() const {
    const std::uint64_t n = n_nodes + 2;
    gap = std::min<std::uint64_t>(std::uint64_t{1} << 32, (std::uint64_t{1} << 62) / n);
    std::uint64_t l = 0;
    for (Vertex v : topo_vertices())
      if (g[v].kind == VertexKind::Node) g[v].node->label_ = (l += gap);
    next_label = l;
    labels_dirty = false;
  }

  static void corrupt(FGraphImpl& m, const std::vector<Apply*>& nodes, Corruption what) {
    if (nodes.empty()) throw Error("corrupt_for_testing: the graph has no nodes");
    Apply* last = nodes.back();
    switch (what) {
      case Corruption::InputWithoutEdge:
        // Point an input at another variable without telling the graph.
        if (nodes.size() > 1 && last->inputs_[0] != nodes.front()->output(0))
          last->inputs_[0] = nodes.front()->output(0);
        else
          last->inputs_[0] = Variable::make(last->input(0)->type(), "stray");
        break;
      case Corruption::DroppedEdge: {
        auto [it, end] = boost::in_edges(vertex_of(last), m.g);
        boost::remove_edge(*it, m.g);
        m.topo_valid = false;
        break;
      }
      case Corruption::NodeCount:
        ++m.n_nodes;
        break;
      case Corruption::DanglingNode:
        last->fgraph_ = nullptr;
        break;
      case Corruption::StaleKind:
        // The kind of another Op than the one the node applies.
        last->kind_ = last->kind_ + 1;
        break;
    }
  }

  void detach_all_nodes() {
    for (auto [it, end] = boost::vertices(g); it != end; ++it)
      if (g[*it].kind == VertexKind::Node) {
        Apply* a = g[*it].node.get();
        a->fgraph_ = nullptr;
        a->vertex_ = nullptr;
      }
  }
};

}  // namespace detail

using detail::BGraph;
using detail::FGraphImpl;
using detail::Vertex;
using detail::VertexKind;

Var CloneMap::operator[](const Var& v) const {
  auto it = variables.find(v.get());
  return it == variables.end() ? v : it->second;
}

FunctionGraph::FunctionGraph(std::vector<Var> inputs, std::vector<Var> outputs, bool clone)
    : impl_(std::make_unique<FGraphImpl>()) {
  impl_->self = this;
  detail::VertexData out;
  out.kind = VertexKind::Outputs;
  impl_->out_vertex = impl_->new_vertex(std::move(out));

  std::unordered_set<const Variable*> seen;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Var& in = inputs[i];
    if (!in) throw Error(fmt::format("input {} of the graph is null", i));
    if (in->is_constant())
      throw Error(fmt::format("{} is a constant and cannot be an input of the graph",
                              describe(*in)));
    if (!seen.insert(in.get()).second)
      throw Error(fmt::format("{} is given twice as an input of the graph", describe(*in)));
    if (!clone && in->owner())
      throw Error(fmt::format(
          "{} is computed by a node and cannot be an input of a graph built without cloning",
          describe(*in)));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i]) throw Error(fmt::format("output {} of the graph is null", i));

  if (clone) {
    ClonedGraph cg = clone_graph(inputs, outputs);
    inputs = std::move(cg.inputs);
    outputs = std::move(cg.outputs);
  }
  for (const Var& in : inputs) impl_->add_root_vertex(in, true);
  impl_->inputs = std::move(inputs);
  try {
    for (const Var& o : outputs) add_output(o);
  } catch (...) {
    impl_->detach_all_nodes();
    throw;
  }
}

FunctionGraph::~FunctionGraph() {
  if (!impl_) return;
  for (const auto& f : impl_->features) f->on_detach(*this);
  impl_->detach_all_nodes();
}

FunctionGraph::FunctionGraph(FunctionGraph&& other) noexcept : impl_(std::move(other.impl_)) {
  if (impl_) impl_->self = this;
}

FunctionGraph& FunctionGraph::operator=(FunctionGraph&& other) noexcept {
  if (this != &other) {
    FunctionGraph dying(std::move(*this));
    impl_ = std::move(other.impl_);
    if (impl_) impl_->self = this;
  }
  return *this;
}

std::span<const Var> FunctionGraph::inputs() const { return impl_->inputs; }
std::span<const Var> FunctionGraph::outputs() const { return impl_->outputs; }

void FunctionGraph::add_input(const Var& input) {
  if (!input || input->owner() || input->is_constant())
    throw Error("add_input: an input must be a variable with no owner and not a constant");
  if (impl_->contains(*input))
    throw Error(fmt::format("add_input: {} is already in the graph", describe(*input)));
  impl_->add_root_vertex(input, true);
  impl_->inputs.push_back(input);
}

void FunctionGraph::add_output(const Var& output, std::string_view reason) {
  if (!output) throw Error("add_output: null variable");
  impl_->import_var(output, reason, 0, detail::kNoUpper);
  const auto slot = static_cast<std::uint32_t>(impl_->outputs.size());
  impl_->add_edge(impl_->producer(*output), impl_->out_vertex, output->index(), slot);
  impl_->outputs.push_back(output);
}

std::size_t FunctionGraph::num_nodes() const { return impl_->n_nodes; }

bool FunctionGraph::contains(const Apply& node) const { return impl_->holds(&node); }
bool FunctionGraph::contains(const Variable& var) const { return impl_->contains(var); }

std::vector<Apply*> FunctionGraph::nodes() const {
  std::vector<Apply*> out;
  out.reserve(impl_->n_nodes);
  for (auto [it, end] = boost::vertices(impl_->g); it != end; ++it)
    if (impl_->g[*it].kind == VertexKind::Node) out.push_back(impl_->g[*it].node.get());
  return out;
}

std::vector<Apply*> FunctionGraph::toposort() const { return impl_->topo_order(); }

std::vector<Var> FunctionGraph::variables() const {
  std::vector<Var> out;
  for (auto [it, end] = boost::vertices(impl_->g); it != end; ++it) {
    const auto& d = impl_->g[*it];
    if (d.kind == VertexKind::Root) out.push_back(d.root);
    else if (d.kind == VertexKind::Node)
      for (std::size_t i = 0; i < d.node->num_outputs(); ++i) out.push_back(d.node->output(i));
  }
  return out;
}

ClientList FunctionGraph::clients(const Variable& var) const {
  ClientList out;
  const Vertex p = impl_->producer(var);
  if (p == BGraph::null_vertex()) return out;
  const auto& g = impl_->g;
  for (auto [it, end] = boost::out_edges(p, g); it != end; ++it) {
    const auto& e = g[*it];
    if (e.out_index != var.index()) continue;
    const auto& t = g[boost::target(*it, g)];
    out.push_back(Client{t.kind == VertexKind::Node ? t.node.get() : nullptr, e.slot});
  }
  return out;
}

std::size_t FunctionGraph::num_clients(const Variable& var) const {
  const Vertex p = impl_->producer(var);
  if (p == BGraph::null_vertex()) return 0;
  std::size_t n = 0;
  for (auto [it, end] = boost::out_edges(p, impl_->g); it != end; ++it)
    n += impl_->g[*it].out_index == var.index();
  return n;
}

namespace {
ReplacementError refused_replacement(std::string_view reason, std::string_view why,
                                     std::string_view undo_error) {
  return ReplacementError(fmt::format(
      "replacement refused{}: {}{}", reason.empty() ? "" : fmt::format(" ({})", reason), why,
      undo_error.empty() ? ""
                         : fmt::format(" (undone; a listener threw while hearing the undo: {})",
                                       undo_error)));
}
}  // namespace

void FunctionGraph::replace(const Var& old_var, const Var& new_var, std::string_view reason) {
  const std::pair<Var, Var> pair{old_var, new_var};
  replace_all(std::span(&pair, 1), reason);
}

void FunctionGraph::replace_all(std::span<const std::pair<Var, Var>> pairs,
                                std::string_view reason) {
  auto lease = impl_->journals.lease();
  std::vector<FGraphImpl::Change>& journal = *lease;
  try {
    for (const auto& [old_var, new_var] : pairs) {
      if (!old_var || !new_var) throw ReplacementError("null variable in a replacement");
      if (!impl_->contains(*old_var))
        throw ReplacementError(fmt::format("{} is not in the graph", describe(*old_var)));
      if (old_var == new_var) continue;
      impl_->check_types(old_var, new_var);
      impl_->replace_uses(old_var, new_var, clients(*old_var), reason, &journal);
    }
    for (const auto& f : impl_->features) f->validate(*this);
  } catch (const std::exception& e) {
    throw refused_replacement(reason, e.what(), impl_->rollback(journal, reason));
  }
}

void FunctionGraph::change_input(const Client& client, const Var& new_var,
                                 std::string_view reason) {
  auto lease = impl_->journals.lease();
  std::vector<FGraphImpl::Change>& journal = *lease;
  try {
    if (!new_var) throw ReplacementError("null variable in a replacement");
    if (client.node ? !impl_->holds(client.node) || client.slot >= client.node->num_inputs()
                    : client.slot >= impl_->outputs.size())
      throw ReplacementError("change_input: no such client in the graph");
    const Var& old_var =
        client.node ? client.node->input(client.slot) : impl_->outputs[client.slot];
    impl_->check_types(old_var, new_var);
    impl_->replace_uses(old_var, new_var, ClientList{client}, reason, &journal);
    for (const auto& f : impl_->features) f->validate(*this);
  } catch (const std::exception& e) {
    throw refused_replacement(reason, e.what(), impl_->rollback(journal, reason));
  }
}

void FunctionGraph::change_op(Apply& node, std::shared_ptr<const Op> op,
                              std::string_view reason) {
  const auto refused = [&](std::string_view why) {
    return ReplacementError(fmt::format("change of Op refused{}: {}",
                                        reason.empty() ? "" : fmt::format(" ({})", reason), why));
  };
  if (!op) throw refused("null Op");
  if (!impl_->holds(&node))
    throw refused(fmt::format("the `{}` node is not in the graph", node.op().to_string()));
  if (op == node.op_ptr()) return;
  // The new Op must type the node as the old one did: the node keeps its
  // output variables, and every use of them was checked against their types.
  ApplyRef probe;
  try {
    probe = op->make_node(node.inputs());
  } catch (const std::exception& e) {
    throw refused(fmt::format("`{}` does not apply to the inputs of `{}`: {}", op->to_string(),
                              node.op().to_string(), e.what()));
  }
  if (probe->num_inputs() != node.num_inputs())
    throw refused(fmt::format("`{}` would take {} inputs where `{}` has {}", op->to_string(),
                              probe->num_inputs(), node.op().to_string(), node.num_inputs()));
  if (probe->num_outputs() != node.num_outputs())
    throw refused(fmt::format("`{}` has {} outputs where `{}` has {}", op->to_string(),
                              probe->num_outputs(), node.op().to_string(), node.num_outputs()));
  for (std::size_t i = 0; i < node.num_inputs(); ++i)
    if (probe->input(i) != node.input(i))
      throw refused(fmt::format("`{}` would convert input {} of `{}`", op->to_string(), i,
                                node.op().to_string()));
  for (std::size_t o = 0; o < node.num_outputs(); ++o) {
    const TypePtr& had = node.output_var(o).type();
    const TypePtr& gets = probe->output_var(o).type();
    if (had != gets && !had->is_super(*gets))
      throw refused(fmt::format("`{}` types output {} as {}, not {}", op->to_string(), o,
                                gets->to_string(), had->to_string()));
  }
  probe = nullptr;
  const std::uint32_t new_kind = op->kind().index();  // may intern: before anything changes
  OpPtr old = std::exchange(node.op_, std::move(op));
  const std::uint32_t old_kind = std::exchange(node.kind_, new_kind);
  // Undoing tells every feature, also those a throwing one kept from hearing
  // the change: hearing a change back to the Op a node has is harmless.
  const auto undo = [&] {
    OpPtr undone = std::exchange(node.op_, old);
    node.kind_ = old_kind;
    const std::string why = "rollback: " + std::string(reason);
    for (const auto& f : impl_->features) {
      try {
        f->on_change_op(*this, node, undone, why);
      } catch (...) {
        // A listener that throws while hearing the undo cannot stop it.
      }
    }
  };
  try {
    for (const auto& f : impl_->features) f->on_change_op(*this, node, old, reason);
    for (const auto& f : impl_->features) f->validate(*this);
  } catch (const std::exception& e) {
    undo();
    throw refused(e.what());
  } catch (...) {
    undo();
    throw;
  }
}

void FunctionGraph::attach_feature(std::shared_ptr<Feature> feature) {
  if (!feature) throw Error("attach_feature: null feature");
  for (const auto& f : impl_->features)
    if (f == feature) return;
  impl_->features.push_back(feature);
  try {
    feature->on_attach(*this);
  } catch (...) {
    impl_->features.pop_back();  // a feature that cannot attach is not attached
    throw;
  }
}

void FunctionGraph::detach_feature(const Feature& feature) {
  auto& fs = impl_->features;
  auto it = std::find_if(fs.begin(), fs.end(), [&](const auto& f) { return f.get() == &feature; });
  if (it == fs.end()) return;
  auto keep = *it;
  fs.erase(it);
  keep->on_detach(*this);
}

const std::vector<std::shared_ptr<Feature>>& FunctionGraph::features() const {
  return impl_->features;
}

void FunctionGraph::validate() const {
  for (const auto& f : impl_->features) f->validate(*this);
}

std::uint64_t FunctionGraph::order_of(const Apply& node) const {
  if (!impl_->holds(&node)) throw Error("order_of: node is not in the graph");
  if (impl_->labels_dirty) impl_->relabel();
  return node.label_;
}

void FunctionGraph::check_integrity() const {
  const FGraphImpl& m = *impl_;
  const BGraph& g = m.g;
  auto fail = [](std::string msg) { throw IntegrityError("integrity check failed: " + msg); };
  std::size_t node_count = 0;
  for (auto [vit, vend] = boost::vertices(g); vit != vend; ++vit) {
    const Vertex v = *vit;
    const auto& d = g[v];
    if (d.kind == VertexKind::Node) {
      ++node_count;
      const Apply* a = d.node.get();
      if (!a) fail("a node vertex holds no node");
      if (a->fgraph_ != &m || a->vertex_ != v)
        fail(fmt::format("node `{}` does not point back at its vertex", a->op().to_string()));
      if (a->kind_index() != a->op().kind().index())
        fail(fmt::format("node `{}` keeps the kind of another Op", a->op().to_string()));
      if (boost::in_degree(v, g) != a->num_inputs())
        fail(fmt::format("node `{}` has {} inputs but {} in-edges", a->op().to_string(),
                         a->num_inputs(), boost::in_degree(v, g)));
      std::vector<bool> seen(a->num_inputs(), false);
      for (auto [eit, eend] = boost::in_edges(v, g); eit != eend; ++eit) {
        const auto& e = g[*eit];
        if (e.slot >= a->num_inputs() || seen[e.slot])
          fail(fmt::format("node `{}` has a bad or repeated in-edge slot {}", a->op().to_string(),
                           e.slot));
        seen[e.slot] = true;
        const Variable& in = *a->input(e.slot);
        if (m.producer(in) != boost::source(*eit, g) || in.index() != e.out_index)
          fail(fmt::format("input {} of `{}` ({}) disagrees with its edge", e.slot,
                           a->op().to_string(), describe(in)));
      }
      if (boost::out_degree(v, g) == 0)
        fail(fmt::format("node `{}` has no clients but was not pruned", a->op().to_string()));
      const auto& oel = g.out_edge_list(v);
      for (std::size_t k = 0; k < oel.size(); ++k)
        if (oel[k].get_iter()->get_property().out_pos != k)
          fail(fmt::format("an out-edge of `{}` has a stale position", a->op().to_string()));
      if (!m.labels_dirty)
        for (auto [eit, eend] = boost::out_edges(v, g); eit != eend; ++eit) {
          const auto& t = g[boost::target(*eit, g)];
          if (t.kind == VertexKind::Node && t.node->label_ <= a->label_)
            fail(fmt::format("order labels of `{}` and its client `{}` are not increasing",
                             a->op().to_string(), t.node->op().to_string()));
        }
    } else if (d.kind == VertexKind::Root) {
      if (m.roots.find(d.root.get()) != v)
        fail(fmt::format("root {} is missing from the root index", describe(*d.root)));
      if (!d.is_input && !d.root->is_constant())
        fail(fmt::format("{} is in the graph but is neither an input nor a constant",
                         describe(*d.root)));
      if (!d.is_input && boost::out_degree(v, g) == 0)
        fail(fmt::format("constant {} has no clients but was not pruned", describe(*d.root)));
    } else {
      if (v != m.out_vertex) fail("a second output vertex");
      if (boost::in_degree(v, g) != m.outputs.size())
        fail(fmt::format("{} outputs but {} output edges", m.outputs.size(),
                         boost::in_degree(v, g)));
      for (auto [eit, eend] = boost::in_edges(v, g); eit != eend; ++eit) {
        const auto& e = g[*eit];
        if (e.slot >= m.outputs.size()) fail("an output edge has a bad slot");
        const Variable& o = *m.outputs[e.slot];
        if (m.producer(o) != boost::source(*eit, g) || o.index() != e.out_index)
          fail(fmt::format("output {} ({}) disagrees with its edge", e.slot, describe(o)));
      }
    }
  }
  if (node_count != m.n_nodes)
    fail(fmt::format("{} node vertices but a count of {}", node_count, m.n_nodes));
  if (m.roots.size() + node_count + 1 != boost::num_vertices(g))
    fail("vertex count disagrees with the node and root indexes");
  for (const Var& in : m.inputs) {
    const Vertex r = m.roots.find(in.get());
    if (r == BGraph::null_vertex() || !g[r].is_input)
      fail(fmt::format("input {} has no input vertex", describe(*in)));
  }
  try {
    (void)m.topo_vertices();
  } catch (const boost::not_a_dag&) {
    fail("the graph has a cycle");
  }
}

std::pair<FunctionGraph, CloneMap> FunctionGraph::clone() const {
  ClonedGraph cg = clone_graph(impl_->inputs, impl_->outputs);
  CloneMap map;
  map.variables = cg.map;
  FunctionGraph copy(cg.inputs, cg.outputs, /*clone=*/false);
  for (Apply* a : nodes()) {
    auto it = cg.map.find(&a->output_var(0));
    if (it != cg.map.end()) map.nodes.emplace(a, it->second->owner());
  }
  return {std::move(copy), std::move(map)};
}

namespace detail {
void corrupt_for_testing(FunctionGraph& fgraph, Corruption what) {
  FGraphImpl::corrupt(*fgraph.impl_, fgraph.toposort(), what);
}
}  // namespace detail

}  // namespace rw
