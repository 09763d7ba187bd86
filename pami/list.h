// Intrusive doubly linked list: queue membership costs no allocation.
#pragma once

namespace pamir {

struct ListNode {
  ListNode *prev = nullptr;
  ListNode *next = nullptr;
  bool linked() const { return prev != nullptr; }
};

// A circular list with a sentinel; T derives from ListNode (or has one as first base).
template <typename T>
class List {
 public:
  List() { head_.prev = head_.next = &head_; }
  List(const List &) = delete;
  List &operator=(const List &) = delete;

  bool empty() const { return head_.next == &head_; }
  T *front() const { return empty() ? nullptr : static_cast<T *>(head_.next); }
  void push_back(T *item) {
    ListNode *n = item;
    n->prev = head_.prev;
    n->next = &head_;
    head_.prev->next = n;
    head_.prev = n;
  }
  void remove(T *item) { unlink(item); }
  // Removes item from whichever list holds it: a node needs no list to leave it.
  static void unlink(T *item) {
    ListNode *n = item;
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = nullptr;
  }
  T *pop_front() {
    T *f = front();
    if (f) remove(f);
    return f;
  }
  // Iteration that tolerates removal of the current element.
  template <typename F>
  void for_each(F &&fn) {
    for (ListNode *n = head_.next; n != &head_;) {
      ListNode *next = n->next;
      fn(static_cast<T *>(n));
      n = next;
    }
  }
  // First element for which pred is true, or nullptr.
  template <typename P>
  T *find(P &&pred) const {
    for (ListNode *n = head_.next; n != &head_; n = n->next)
      if (pred(static_cast<T *>(n))) return static_cast<T *>(n);
    return nullptr;
  }

 private:
  ListNode head_;
};

}  // namespace pamir
