// Apply nodes: one allocation for the node, its input handles and its outputs,
// from the per-thread size-class pool that terms use (a rewrite makes and drops
// nodes of a few sizes by the hundred, more than malloc's per-thread cache
// keeps); iterative destruction so that dropping a deep graph does not recurse.
#include "engine/graph/apply.hpp"

#include <new>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "runtime/detail/pool_alloc.hpp"

namespace rw {

namespace {
constexpr std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }
constexpr std::size_t inputs_offset() { return align_up(sizeof(Apply), alignof(Var)); }
std::size_t outputs_offset(std::size_t n_inputs) {
  return align_up(inputs_offset() + n_inputs * sizeof(Var), alignof(Variable));
}
std::size_t block_bytes(std::size_t n_inputs, std::size_t n_outputs) {
  return outputs_offset(n_inputs) + n_outputs * sizeof(Variable);
}
static_assert(alignof(Apply) <= 16 && alignof(Variable) <= 16 && alignof(Var) <= 16,
              "pool blocks are 16-byte aligned");
}  // namespace

Apply::Apply(OpPtr op, std::uint32_t kind, std::size_t n_inputs, std::size_t n_outputs)
    : op_(std::move(op)), n_inputs_(static_cast<std::uint32_t>(n_inputs)),
      n_outputs_(static_cast<std::uint32_t>(n_outputs)), kind_(kind) {}

ApplyRef Apply::create(OpPtr op, std::span<const Var> inputs,
                       std::span<const TypePtr> output_types) {
  if (!op) throw TypeError("an Apply node needs an Op");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i])
      throw TypeError("input " + std::to_string(i) + " of `" + std::string(op->name()) +
                      "` is null");
  const std::size_t n_in = inputs.size(), n_out = output_types.size();
  const std::uint32_t kind = op->kind().index();  // may intern: before anything is allocated
  void* block = detail::pool_alloc(block_bytes(n_in, n_out));
  auto* base = static_cast<std::byte*>(block);
  auto* node = new (block) Apply(std::move(op), kind, n_in, n_out);
  node->inputs_ = reinterpret_cast<Var*>(base + inputs_offset());
  node->outputs_ = reinterpret_cast<Variable*>(base + outputs_offset(n_in));
  for (std::size_t i = 0; i < n_in; ++i) new (&node->inputs_[i]) Var(inputs[i]);
  for (std::size_t i = 0; i < n_out; ++i)
    new (&node->outputs_[i])
        Variable(output_types[i], node, static_cast<std::uint32_t>(i), &node->count_);
  return ApplyRef(node);
}

Apply::~Apply() {
  for (std::size_t i = n_outputs_; i-- > 0;) outputs_[i].~Variable();
  for (std::size_t i = n_inputs_; i-- > 0;) inputs_[i].~Var();
}

namespace {
// The nodes waiting to be freed by the destruction in progress on this
// thread, if any. The list lives on that destruction's stack frame, not in a
// thread_local with a destructor: a node may be dropped while the thread's
// thread_locals are being destroyed.
using PendingNodes = boost::container::small_vector<Apply*, 32>;
thread_local PendingNodes* t_pending_nodes = nullptr;
}  // namespace

void Apply::destroy(Apply* a) noexcept {
  // Freeing a node releases its inputs, which may free their owners in turn.
  // Collect those on a list instead of recursing: a chain of 10^6 nodes would
  // otherwise overflow the stack.
  if (t_pending_nodes) {
    t_pending_nodes->push_back(a);
    return;
  }
  PendingNodes pending;
  t_pending_nodes = &pending;
  for (;;) {
    const std::size_t bytes = block_bytes(a->n_inputs_, a->n_outputs_);
    a->~Apply();
    detail::pool_free(a, bytes);
    if (pending.empty()) break;
    a = pending.back();
    pending.pop_back();
  }
  t_pending_nodes = nullptr;
}

std::vector<Var> Apply::outputs() const {
  std::vector<Var> out;
  out.reserve(n_outputs_);
  for (std::size_t i = 0; i < n_outputs_; ++i) out.push_back(output(i));
  return out;
}

Var Apply::default_output() const {
  if (n_outputs_ == 1) return output(0);
  if (auto d = op_->default_output()) return output(*d);
  throw TypeError("`" + op_->to_string() + "` has " + std::to_string(n_outputs_) +
                  " outputs and no default output; take one with output(i)");
}

ApplyRef Apply::clone_with_inputs(std::span<const Var> inputs) const {
  if (inputs.size() != n_inputs_)
    throw TypeError("clone of `" + op_->to_string() + "` with " + std::to_string(inputs.size()) +
                    " inputs instead of " + std::to_string(n_inputs_));
  boost::container::small_vector<TypePtr, 4> types;  // no allocation for the usual node
  for (std::size_t i = 0; i < n_outputs_; ++i) types.push_back(outputs_[i].type());
  ApplyRef copy = create(op_, inputs, std::span<const TypePtr>(types.data(), types.size()));
  for (std::size_t i = 0; i < n_outputs_; ++i)
    if (!outputs_[i].name().empty()) copy->outputs_[i].set_name(outputs_[i].name());
  return copy;
}

}  // namespace rw
