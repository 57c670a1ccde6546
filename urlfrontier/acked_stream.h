// AckedStream: a bidirectional stream in which each message read becomes
// one batch of commands and each batch's replies become one message
// written back, in order (PutURLs: an item and its ack; PutDiscovered: a
// batch and its acks). Bounded: at most `max_in_flight` messages read and
// whose answer is not yet written out (running, or answered and waiting
// for the client to take its answer); past that the stream stops reading
// until answers go out, so a client that sends fast, or reads its answers
// slowly or not at all, is held back by HTTP/2 flow control rather than
// by the server's memory.
//
// Lifetime: gRPC owns the reactor until OnDone; a batch still waiting in
// the Caller keeps it alive past that (Pin/Unpin), so a continuation never
// runs on a deleted reactor.
#pragma once

#include <grpcpp/support/server_callback.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "urlfrontier/caller.h"
#include "urlfrontier/reactor_pins.h"
#include "urlfrontier/rpc_stats.h"

namespace frontier::urlfrontier {

template <typename In, typename Out>
class AckedStream : public grpc::ServerBidiReactor<In, Out> {
 public:
  // What one message read turns into: the commands to run, and how their
  // replies (or the batch's failure, with `replies` empty) become the
  // answer.
  struct Work {
    std::vector<Caller::Command> commands;
    std::function<Out(const grpc::Status&, std::vector<RespValue>&)> answer;
  };
  // Translates one message read; called on a gRPC thread, in order.
  using Translate = std::function<Work(In&)>;

  // Counts the call as one of `rpc` in `stats`, which must outlive it.
  AckedStream(std::shared_ptr<Caller> caller, size_t max_in_flight,
              RpcStats* stats, Rpc rpc, Translate translate)
      : caller_(std::move(caller)),
        max_in_flight_(max_in_flight),
        stats_(stats),
        rpc_(rpc),
        translate_(std::move(translate)) {
    stats_->Started(rpc_);
    reading_ = true;
    this->StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client half-closed (or the call ended)
      std::unique_lock<std::mutex> lock(mu_);
      reading_ = false;
      reads_done_ = true;
      MaybeFinish(lock);
      return;
    }
    Work work = translate_(in_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++in_flight_;
    }
    pins_.Pin();
    caller_->Call(
        std::move(work.commands),
        [this, answer = std::move(work.answer)](
            const grpc::Status& status, std::vector<RespValue>& replies) {
          Answered(answer(status, replies));
        });
    bool read_on;
    {
      std::lock_guard<std::mutex> lock(mu_);
      read_on = !finished_ && Pending() < max_in_flight_;
      reading_ = read_on;
    }
    if (read_on) this->StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    bool read_on = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      out_.pop_front();
      writing_ = false;
      if (!ok) {
        FinishOnce(lock, grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                      "the client stopped reading"));
        return;
      }
      WriteNext(lock);  // may unlock
      if (!lock.owns_lock()) lock.lock();
      read_on = ReadOn();
    }
    // An answer went out: the stream may read again.
    if (read_on) this->StartRead(&in_);
  }

  void OnCancel() override {
    caller_->Fail(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
    std::unique_lock<std::mutex> lock(mu_);
    FinishOnce(lock, grpc::Status::CANCELLED);
  }

  void OnDone() override {
    if (pins_.Done()) delete this;
  }

 private:
  // A batch's answer is in (on the reply thread, or wherever the Caller
  // failed).
  void Answered(Out out) {
    bool read_on = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      --in_flight_;
      if (!finished_) {
        out_.push_back(std::move(out));
        WriteNext(lock);  // may unlock
        if (!lock.owns_lock()) lock.lock();
        read_on = ReadOn();
      }
    }
    if (read_on) this->StartRead(&in_);
    // Unpinned last: until here OnDone (which the write or the read above
    // may bring about) must not delete the reactor.
    if (pins_.Unpin()) delete this;
  }

  // With the lock: messages read whose answer is not written out yet.
  size_t Pending() const { return in_flight_ + out_.size(); }

  // With the lock: whether to start a read now (none is outstanding, the
  // client may send more and the budget allows); if so, marks it started.
  bool ReadOn() {
    if (finished_ || reading_ || reads_done_ ||
        Pending() >= max_in_flight_) {
      return false;
    }
    reading_ = true;
    return true;
  }

  // With the lock: starts writing the next answer, or finishes when all
  // is answered and the client sends no more. Unlocks before calling into
  // gRPC.
  void WriteNext(std::unique_lock<std::mutex>& lock) {
    if (finished_ || writing_) return;
    if (!out_.empty()) {
      writing_ = true;
      Out* next = &out_.front();  // deque: stays put while others queue
      lock.unlock();
      this->StartWrite(next);
      return;
    }
    MaybeFinish(lock);
  }

  void MaybeFinish(std::unique_lock<std::mutex>& lock) {
    if (reads_done_ && in_flight_ == 0 && out_.empty() && !writing_) {
      FinishOnce(lock, grpc::Status::OK);
    }
  }

  void FinishOnce(std::unique_lock<std::mutex>& lock, grpc::Status status) {
    if (finished_) return;
    finished_ = true;
    lock.unlock();
    stats_->Ended(rpc_, status.ok());
    this->Finish(std::move(status));
  }

  std::shared_ptr<Caller> caller_;
  const size_t max_in_flight_;
  RpcStats* const stats_;
  const Rpc rpc_;
  Translate translate_;
  In in_;  // the read buffer: one read at a time

  ReactorPins pins_;
  std::mutex mu_;
  std::deque<Out> out_;   // answers to write; the front one is being written
  size_t in_flight_ = 0;  // read, not yet answered
  bool reading_ = false;  // a read is outstanding
  bool reads_done_ = false;
  bool writing_ = false;
  bool finished_ = false;  // Finish() called
};

}  // namespace frontier::urlfrontier
