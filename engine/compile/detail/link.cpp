// The linker: run order, slots, last reads, and which freed buffer each node
// output is handed (a static plan, so the VM only follows it).
#include <algorithm>
#include <unordered_map>

#include "engine/compile/aliasing.hpp"
#include "engine/compile/detail/program.hpp"
#include "engine/compile/schedule.hpp"
#include "engine/graph/op.hpp"
#include "support/error.hpp"

namespace rw::detail {

TypeCheck Program::make_check(const Type& type) {
  TypeCheck c;
  const TensorType* t = as_tensor_type(type);
  if (!t) return c;
  c.tensor = true;
  c.dtype = t->dtype();
  c.ndim = static_cast<std::uint32_t>(t->ndim());
  c.dims_begin = static_cast<std::uint32_t>(dims.size());
  for (std::size_t a = 0; a < t->ndim(); ++a)
    if (t->shape()[a] != kUnknownDim) dims.emplace_back(static_cast<std::uint32_t>(a), t->shape()[a]);
  c.dims_end = static_cast<std::uint32_t>(dims.size());
  return c;
}

namespace {

/// A buffer released at some step, waiting for a later node output to take it.
struct FreeBuffer {
  const TensorType* type;
  std::size_t release;  // index in Program::releases
};

/// Whether a buffer of type `have` may be handed to an output of type `want`:
/// same dtype and rank, and no known extents that differ. Whether it really
/// fits is the Op's decision at run time.
bool may_fit(const TensorType& have, const TensorType& want) {
  if (have.dtype() != want.dtype() || have.ndim() != want.ndim()) return false;
  for (std::size_t a = 0; a < want.ndim(); ++a)
    if (have.shape()[a] != kUnknownDim && want.shape()[a] != kUnknownDim &&
        have.shape()[a] != want.shape()[a])
      return false;
  return true;
}

bool same_known_shape(const TensorType& a, const TensorType& b) {
  return a.shape_known() && b.shape_known() && a.shape() == b.shape();
}

}  // namespace

void link(Program& p) {
  const FunctionGraph& fg = p.fgraph;
  p.order = schedule(fg);

  std::unordered_map<const Variable*, std::uint32_t> slot_of;
  std::uint32_t next = 0;
  for (const Var& in : fg.inputs()) slot_of.emplace(in.get(), next++);
  auto add_constant = [&](const Var& v) {
    if (!v->is_constant() || slot_of.contains(v.get())) return;
    slot_of.emplace(v.get(), next);
    p.constants.emplace_back(next++, v->as_constant()->value());
  };
  for (const Apply* node : p.order)
    for (const Var& in : node->inputs()) add_constant(in);
  for (const Var& out : fg.outputs()) add_constant(out);
  p.first_node_slot = next;
  for (const Apply* node : p.order)
    for (std::size_t j = 0; j < node->num_outputs(); ++j) slot_of.emplace(&node->output_var(j), next++);
  p.n_slots = next;

  const std::size_t n = p.order.size();
  std::vector<std::int64_t> last_read(p.n_slots, -1);
  std::vector<std::uint8_t> is_output(p.n_slots, 0);
  for (std::size_t k = 0; k < n; ++k)
    for (const Var& in : p.order[k]->inputs()) last_read[slot_of.at(in.get())] = static_cast<std::int64_t>(k);
  for (const Var& out : fg.outputs()) {
    const std::uint32_t s = slot_of.at(out.get());
    RW_ASSERT(!is_output[s],
              "link: a variable is returned twice (outputs are deduplicated before)");
    is_output[s] = 1;
    p.output_slots.push_back(s);
  }

  p.owning.assign(p.n_slots, 0);
  p.counted.assign(p.n_slots, 0);
  std::vector<const TensorType*> type_of(p.n_slots, nullptr);
  for (const Apply* node : p.order)
    for (std::size_t j = 0; j < node->num_outputs(); ++j) {
      const std::uint32_t s = slot_of.at(&node->output_var(j));
      type_of[s] = node->output_var(j).tensor_type();
      p.owning[s] = aliased_inputs(*node, j).empty();
      p.counted[s] = p.owning[s] && !is_output[s];
      p.out_checks.push_back(p.make_check(*node->output_var(j).type()));
    }
  auto intermediate = [&](std::uint32_t s) { return s >= p.first_node_slot && !is_output[s]; };
  for (std::size_t r = 0; r < p.n_returned; ++r)
    p.keep_output.push_back(!p.allow_gc && p.output_slots[r] >= p.first_node_slot &&
                            p.owning[p.output_slots[r]]);

  std::vector<FreeBuffer> free;
  for (std::size_t k = 0; k < n; ++k) {
    const Apply* node = p.order[k];
    Step step;
    step.node = node;
    step.op = &node->op();
    step.cell_begin = static_cast<std::uint32_t>(p.cells.size());
    step.n_cells = static_cast<std::uint32_t>(node->num_inputs());
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      const std::uint32_t s = slot_of.at(node->input(i).get());
      bool read_again = false;
      for (std::size_t j = i + 1; j < node->num_inputs(); ++j)
        read_again |= node->input(j).get() == node->input(i).get();
      // Keeping buffers between calls only pays for buffers a node computed;
      // a view kept would only pin what it views (perhaps the caller's input).
      const bool move = (p.allow_gc || !p.owning[s]) && intermediate(s) &&
                        last_read[s] == static_cast<std::int64_t>(k) && !read_again;
      const bool fixed = node->input(i)->is_constant();
      p.cells.push_back({s, move, false, fixed});
    }
    step.out_begin = node->num_outputs() ? slot_of.at(&node->output_var(0)) : 0;
    step.n_out = static_cast<std::uint32_t>(node->num_outputs());

    if (p.allow_gc) {
      // Hand each output that needs a buffer of its own one freed by an
      // earlier step: the same known shape if there is one, else the most
      // recently freed that may fit.
      for (std::uint32_t j = 0; j < step.n_out; ++j) {
        const std::uint32_t s = step.out_begin + j;
        if (!p.owning[s] || !type_of[s]) continue;
        auto pick = free.end();
        for (auto it = free.rbegin(); it != free.rend(); ++it) {
          if (!may_fit(*it->type, *type_of[s])) continue;
          if (pick == free.end()) pick = std::prev(it.base());
          if (same_known_shape(*it->type, *type_of[s])) {
            pick = std::prev(it.base());
            break;
          }
        }
        if (pick == free.end()) continue;
        p.releases[pick->release].to_slot = s;
        free.erase(pick);
      }
    }

    step.release_begin = static_cast<std::uint32_t>(p.releases.size());
    if (p.allow_gc) {
      for (std::uint32_t c = step.cell_begin; c < step.cell_begin + step.n_cells; ++c) {
        const std::uint32_t s = p.cells[c].slot;
        if (!p.cells[c].move || !p.counted[s] || !type_of[s]) continue;
        free.push_back({type_of[s], p.releases.size()});
        p.releases.push_back({c, true, true, kNoSlot});
      }
    }
    for (std::uint32_t j = 0; j < step.n_out; ++j) {
      const std::uint32_t s = step.out_begin + j;
      if (!intermediate(s) || last_read[s] >= 0 || !(p.allow_gc || !p.owning[s])) continue;
      if (p.allow_gc && p.counted[s] && type_of[s])
        free.push_back({type_of[s], p.releases.size()});
      p.releases.push_back({s, false, static_cast<bool>(p.counted[s]), kNoSlot});
    }
    step.n_release = static_cast<std::uint32_t>(p.releases.size()) - step.release_begin;
    p.steps.push_back(step);
  }

  // A moved-in cell whose buffer nobody takes is simply dropped with the
  // other cells; keep only the releases that do something.
  std::vector<Release> kept;
  for (Step& step : p.steps) {
    const std::uint32_t begin = static_cast<std::uint32_t>(kept.size());
    for (std::uint32_t r = step.release_begin; r < step.release_begin + step.n_release; ++r) {
      const Release& rel = p.releases[r];
      if (rel.from_cell && rel.to_slot == kNoSlot) continue;
      if (rel.from_cell) p.cells[rel.from].handed_on = true;
      kept.push_back(rel);
    }
    step.release_begin = begin;
    step.n_release = static_cast<std::uint32_t>(kept.size()) - begin;
  }
  p.releases = std::move(kept);
}

}  // namespace rw::detail
