// Caller: one gRPC call's client of frontierd's loop. A call's rpc becomes
// RESP commands; the Caller sends them, in order, over a CommandTransport
// (an internal client of the loop that the server's door opens: a
// connection without a socket, server/urlfrontier_door.h) and hands each
// batch's replies to its continuation once the loop has released them,
// that is once they are durable, exactly as a socket client gets them.
//
// Thread-safe. Continuations run on the thread that delivers the replies
// (the door's reply thread), or, when the Caller fails, on the thread that
// fails it; never with the Caller's lock held, so a continuation may Call()
// again.
#pragma once

#include <grpcpp/support/status.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "urlfrontier/resp_value.h"

namespace frontier::urlfrontier {

// What the loop's side of a Caller reports back (ReplyReceiver is held
// weakly: a receiver that is gone is simply not told).
class ReplyReceiver {
 public:
  virtual ~ReplyReceiver() = default;
  // Released reply bytes, in order. Never on the loop thread.
  virtual void OnReplies(std::string bytes) = 0;
  // The internal client was closed by the server (a failed log sync, CLIENT
  // KILL, shutdown): no more replies will come.
  virtual void OnClosed(grpc::Status why) = 0;
};

class CommandTransport {
 public:
  // Closes the internal client (its unreleased replies are dropped).
  virtual ~CommandTransport() = default;
  // Any thread: request bytes for the loop to run after those sent before.
  // False if they cannot be (the server is stopping): nothing was sent.
  virtual bool Send(std::string bytes) = 0;
};

class CommandChannel {
 public:
  virtual ~CommandChannel() = default;
  // Opens an internal client for one call whose peer is `peer` (for CLIENT
  // LIST and the log); its replies go to `receiver`.
  virtual std::unique_ptr<CommandTransport> Open(
      std::weak_ptr<ReplyReceiver> receiver, std::string peer) = 0;
};

class Caller : public ReplyReceiver,
               public std::enable_shared_from_this<Caller> {
 public:
  using Command = std::vector<std::string>;
  // The replies of a batch, one per command in order, when `status` is OK
  // (an error reply is a reply: RespValue::is_error); with any other
  // status the batch did not complete and `replies` is empty.
  using Done = std::function<void(const grpc::Status& status,
                                  std::vector<RespValue>& replies)>;

  // A Caller on a new internal client of `channel`. When `user` is not
  // empty the client first authenticates (AUTH user password); a failed
  // AUTH answers the first batch with its error reply.
  static std::shared_ptr<Caller> Open(CommandChannel& channel, std::string peer,
                                      const std::string& user,
                                      const std::string& password);

  // Sends `commands` (at least one) as one batch; `done` runs once.
  void Call(std::vector<Command> commands, Done done);
  // Fails every batch waiting and every later one with `why`.
  void Fail(grpc::Status why);

  // ReplyReceiver.
  void OnReplies(std::string bytes) override;
  void OnClosed(grpc::Status why) override { Fail(std::move(why)); }

 private:
  struct Batch {
    size_t expected = 0;
    bool skip_first = false;              // the AUTH reply of the first batch
    std::optional<RespValue> auth_error;  // what that AUTH replied
    std::vector<RespValue> replies;
    Done done;
  };

  Caller() = default;

  std::mutex mu_;
  std::unique_ptr<CommandTransport> transport_;
  std::deque<Batch> waiting_;  // guarded by mu_
  RespReplyReader reader_;     // guarded by mu_
  bool failed_ = false;        // guarded by mu_
  grpc::Status failure_;       // guarded by mu_
  bool auth_pending_ = false;  // the AUTH sent at Open awaits its batch
  std::string auth_;           // its request bytes
};

}  // namespace frontier::urlfrontier
