// WriteStream: the part that GetURLs and ListURLs share. A server-streaming
// reactor that gathers its messages through a Caller's batches, then
// writes them one at a time and ends the call, counted in RpcStats. Batches
// are pinned (ReactorPins) so that the reactor outlives their
// continuations; a cancelled call fails its Caller.
#pragma once

#include <grpcpp/support/server_callback.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "urlfrontier/caller.h"
#include "urlfrontier/convert.h"
#include "urlfrontier/reactor_pins.h"
#include "urlfrontier/rpc_stats.h"

namespace frontier::urlfrontier {

template <typename Msg>
class WriteStream : public grpc::ServerWriteReactor<Msg> {
 public:
  void OnWriteDone(bool ok) override {
    if (!ok) {
      End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
      return;
    }
    WriteNext();
  }

  void OnCancel() override {
    caller_->Fail(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  }

  void OnDone() override {
    if (pins_.Done()) delete this;
  }

 protected:
  // Counts the call of `rpc` in `stats`, which must outlive it.
  WriteStream(std::shared_ptr<Caller> caller, RpcStats* stats, Rpc rpc)
      : caller_(std::move(caller)), stats_(stats), rpc_(rpc) {
    stats_->Started(rpc_);
  }

  // Before a Call() whose continuation uses this reactor; Unpin() at the
  // very end of that continuation (it may delete the reactor).
  void Pin() { pins_.Pin(); }
  void Unpin() {
    if (pins_.Unpin()) delete this;
  }

  // Sends `commands` as one batch, pinned: a failed batch or an error
  // reply ends the call with it; otherwise `next` gets the replies.
  void Call(std::vector<Caller::Command> commands,
            std::function<void(std::vector<RespValue>&)> next) {
    Pin();
    caller_->Call(std::move(commands),
                  [this, next = std::move(next)](
                      const grpc::Status& status,
                      std::vector<RespValue>& replies) {
                    grpc::Status s = status.ok() ? FirstError(replies) : status;
                    if (s.ok()) {
                      next(replies);
                    } else {
                      End(std::move(s));
                    }
                    Unpin();
                  });
  }

  // One write at a time: the next message, or the end.
  void WriteNext() {
    if (next_write_ < messages_.size()) {
      this->StartWrite(&messages_[next_write_++]);
    } else {
      End(grpc::Status::OK);
    }
  }

  // Ends the call once (later calls do nothing).
  void End(grpc::Status status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_) return;
      finished_ = true;
    }
    stats_->Ended(rpc_, status.ok());
    this->Finish(std::move(status));
  }

  std::shared_ptr<Caller> caller_;
  // What to write, gathered before the first write (touched by one
  // thread at a time: the batches run one after the other).
  std::deque<Msg> messages_;

 private:
  RpcStats* const stats_;
  const Rpc rpc_;
  size_t next_write_ = 0;
  ReactorPins pins_;
  std::mutex mu_;
  bool finished_ = false;
};

}  // namespace frontier::urlfrontier
