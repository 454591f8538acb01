// A sorted set of unique keys that also says where a key stands (how many keys are less than
// it) in O(log n): the rank a summary's heat strip needs to place one app's digit without
// walking the others. A treap whose nodes count their subtree; priorities come from a
// deterministic generator (the engine has no randomness of its own), which keeps the expected
// depth logarithmic for any insertion order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace fleetwave::engine {

template <typename Key>
class OrderStatisticSet {
 public:
  // REQUIRES: `key` absent. Returns the number of keys less than it.
  size_t Insert(Key key) {
    std::unique_ptr<Node> less, rest;
    Split(std::move(root_), key, false, &less, &rest);
    const size_t rank = Size(less);
    auto node = std::make_unique<Node>();
    node->key = std::move(key);
    node->priority = NextPriority();
    root_ = Merge(Merge(std::move(less), std::move(node)), std::move(rest));
    return rank;
  }
  // REQUIRES: `key` present. Returns the number of keys less than it (before the erase).
  size_t Erase(const Key& key) {
    std::unique_ptr<Node> less, rest, equal, greater;
    Split(std::move(root_), key, false, &less, &rest);
    Split(std::move(rest), key, true, &equal, &greater);
    const size_t rank = Size(less);
    root_ = Merge(std::move(less), std::move(greater));
    return rank;
  }
  size_t size() const { return Size(root_); }

 private:
  struct Node {
    Key key;
    uint64_t priority = 0;
    size_t size = 1;
    std::unique_ptr<Node> left, right;
  };

  static size_t Size(const std::unique_ptr<Node>& n) { return n ? n->size : 0; }
  static void Update(Node* n) { n->size = 1 + Size(n->left) + Size(n->right); }

  // Splits `t` into keys before `key` (`inclusive`: keys up to and including it) and the rest.
  static void Split(std::unique_ptr<Node> t, const Key& key, bool inclusive,
                    std::unique_ptr<Node>* before, std::unique_ptr<Node>* after) {
    if (!t) {
      before->reset();
      after->reset();
      return;
    }
    const bool goes_before = inclusive ? !(key < t->key) : t->key < key;
    if (goes_before) {
      std::unique_ptr<Node> right = std::move(t->right);
      Split(std::move(right), key, inclusive, &t->right, after);
      Update(t.get());
      *before = std::move(t);
    } else {
      std::unique_ptr<Node> left = std::move(t->left);
      Split(std::move(left), key, inclusive, before, &t->left);
      Update(t.get());
      *after = std::move(t);
    }
  }

  // REQUIRES: every key of `a` is less than every key of `b`.
  static std::unique_ptr<Node> Merge(std::unique_ptr<Node> a, std::unique_ptr<Node> b) {
    if (!a) return b;
    if (!b) return a;
    if (a->priority > b->priority) {
      a->right = Merge(std::move(a->right), std::move(b));
      Update(a.get());
      return a;
    }
    b->left = Merge(std::move(a), std::move(b->left));
    Update(b.get());
    return b;
  }

  uint64_t NextPriority() {  // xorshift64*
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ULL;
  }

  std::unique_ptr<Node> root_;
  uint64_t state_ = 0x9E3779B97F4A7C15ULL;
};

}  // namespace fleetwave::engine
