// ScratchPool: buffers lent for the length of one call and kept for the next.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace rw::detail {

/// Buffers lent out for the length of one call and kept for the next, so that
/// a call allocates nothing once its owner has warmed up (a FunctionGraph
/// replacing nodes, a thread running rewrite passes). Lent, not plain
/// members, because calls nest (a feature's callback may re-enter the graph,
/// a pass may run another): each nested call gets the next buffer of the
/// stack. T needs `clear()`, called when the lease ends.
template <class T> class ScratchPool {
 public:
  class Lease {
   public:
    explicit Lease(ScratchPool& pool) : pool_(pool) {
      if (pool.depth_ == pool.items_.size()) pool.items_.push_back(std::make_unique<T>());
      item_ = pool.items_[pool.depth_++].get();
    }
    ~Lease() {
      item_->clear();
      --pool_.depth_;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    T& operator*() { return *item_; }
    T* operator->() { return item_; }

   private:
    ScratchPool& pool_;
    T* item_;
  };
  Lease lease() { return Lease(*this); }

 private:
  std::vector<std::unique_ptr<T>> items_;
  std::size_t depth_ = 0;
};

}  // namespace rw::detail
