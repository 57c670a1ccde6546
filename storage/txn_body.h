// The two standalone pieces of FrontierImpl's write transactions
// (frontier_pass.cc): TxnBody, how a verb hands its body to RunWrite, and
// ResetPerTransaction, how the maps that live for one transaction are
// emptied. Neither knows FrontierImpl.
#pragma once

#include <memory>
#include <type_traits>

#include "storage/bdb.h"
#include "util/status.h"

namespace frontier {

// A non-owning reference to a callable `Status(DbTxn*)`. RunWrite runs on
// every command; std::function would heap-allocate the verbs' lambdas
// (their captures exceed its small buffer). The callable must outlive the
// call it is passed to, as a lambda argument does.
class TxnBody {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, TxnBody>)
  TxnBody(F&& f)  // NOLINT: implicit, so a lambda can be passed directly
      : obj_(static_cast<void*>(std::addressof(f))),
        call_([](void* o, DbTxn* t) {
          return (*static_cast<std::remove_reference_t<F>*>(o))(t);
        }) {}
  Status operator()(DbTxn* t) const { return call_(obj_, t); }

 private:
  void* obj_;
  Status (*call_)(void*, DbTxn*);
};

// Empties a map that lives for one transaction. unordered_map::clear()
// keeps the bucket array and wipes all of it on every later clear(): after
// the start's scheduler rebuild (an entry per site) that was a memset of
// megabytes per command, 1 ms each with 1M sites. A large one is replaced.
template <typename Map>
void ResetPerTransaction(Map* map) {
  constexpr size_t kKeepBuckets = 1024;
  if (map->bucket_count() > kKeepBuckets) {
    Map().swap(*map);
  } else {
    map->clear();
  }
}

}  // namespace frontier
