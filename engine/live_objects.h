// The live objects of one app as decisions hold them: shared, immutable projections
// (LiveObjectPtr). A cluster actor projects each watched object once; the same copy goes through
// its cache and its updates into every decision state that holds the app, so replacing an app's
// live objects moves pointers instead of copying (and later freeing) their JSON.
//
// LiveObjects reads like a std::vector<LiveObject> (range-for, operator[], size) so decisions
// need not know the objects are shared. Building one from LiveObject values copies them once
// into shared copies: meant for hand-made lists (tests, tools), never for the watch path.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "engine/live_object.h"

namespace fleetwave::engine {

using LiveObjectPtr = std::shared_ptr<const LiveObject>;

class LiveObjects {
 public:
  using Shared = std::vector<LiveObjectPtr>;

  // Iterates the objects, not the pointers.
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = LiveObject;
    using difference_type = std::ptrdiff_t;
    using pointer = const LiveObject*;
    using reference = const LiveObject&;

    const_iterator() = default;
    explicit const_iterator(Shared::const_iterator it) : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    reference operator[](difference_type n) const { return *it_[n]; }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(it_++); }
    const_iterator& operator--() {
      --it_;
      return *this;
    }
    const_iterator operator--(int) { return const_iterator(it_--); }
    const_iterator& operator+=(difference_type n) {
      it_ += n;
      return *this;
    }
    const_iterator& operator-=(difference_type n) {
      it_ -= n;
      return *this;
    }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return a.it_ - b.it_;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.it_ == b.it_;
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return a.it_ != b.it_;
    }
    friend bool operator<(const const_iterator& a, const const_iterator& b) {
      return a.it_ < b.it_;
    }
    // The shared copy this position holds.
    const LiveObjectPtr& shared() const { return *it_; }

   private:
    friend class LiveObjects;
    Shared::const_iterator it_;
  };
  using iterator = const_iterator;

  LiveObjects() = default;
  explicit LiveObjects(Shared shared) : objects_(std::move(shared)) {}
  // Copies each object once into a shared copy (hand-made lists).
  LiveObjects(std::initializer_list<LiveObject> objects) {
    for (const LiveObject& o : objects) push_back(o);
  }
  LiveObjects(const std::vector<LiveObject>& objects) {  // NOLINT: implicit, as above
    for (const LiveObject& o : objects) push_back(o);
  }

  // `object` must not be null.
  void push_back(LiveObjectPtr object) { objects_.push_back(std::move(object)); }
  void push_back(LiveObject object) {
    objects_.push_back(std::make_shared<const LiveObject>(std::move(object)));
  }
  void reserve(std::size_t n) { objects_.reserve(n); }
  void clear() { objects_.clear(); }
  const_iterator erase(const_iterator at) { return const_iterator(objects_.erase(at.it_)); }

  std::size_t size() const { return objects_.size(); }
  bool empty() const { return objects_.empty(); }
  const LiveObject& operator[](std::size_t i) const { return *objects_[i]; }
  const LiveObject& front() const { return *objects_.front(); }
  const_iterator begin() const { return const_iterator(objects_.begin()); }
  const_iterator end() const { return const_iterator(objects_.end()); }
  const Shared& shared() const { return objects_; }

 private:
  Shared objects_;
};

}  // namespace fleetwave::engine
