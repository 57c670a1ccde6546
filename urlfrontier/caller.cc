#include "urlfrontier/caller.h"

#include <utility>

namespace frontier::urlfrontier {

std::shared_ptr<Caller> Caller::Open(CommandChannel& channel, std::string peer,
                                     const std::string& user,
                                     const std::string& password) {
  std::shared_ptr<Caller> caller(new Caller());
  if (!user.empty()) {
    caller->auth_pending_ = true;
    caller->auth_ = EncodeCommand({"AUTH", user, password});
  }
  caller->transport_ = channel.Open(caller->weak_from_this(), std::move(peer));
  return caller;
}

void Caller::Call(std::vector<Command> commands, Done done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!failed_) {
    Batch batch;
    batch.expected = commands.size();
    std::string bytes;
    if (auth_pending_) {
      // The AUTH goes with the first batch; a refusal is its answer.
      auth_pending_ = false;
      bytes = std::move(auth_);
      batch.expected += 1;
      batch.skip_first = true;
    }
    for (const Command& command : commands) bytes += EncodeCommand(command);
    batch.done = std::move(done);
    // Sent under the lock: batches reach the loop in the order they wait.
    if (transport_ != nullptr && transport_->Send(std::move(bytes))) {
      waiting_.push_back(std::move(batch));
      return;
    }
    failed_ = true;
    failure_ = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "frontierd is shutting down");
    done = std::move(batch.done);
  }
  const grpc::Status failure = failure_;
  lock.unlock();
  std::vector<RespValue> none;
  done(failure, none);
}

void Caller::Fail(grpc::Status why) {
  std::deque<Batch> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failed_) {
      failed_ = true;
      failure_ = std::move(why);
    }
    failed.swap(waiting_);
  }
  std::vector<RespValue> none;
  for (Batch& batch : failed) batch.done(failure_, none);
}

void Caller::OnReplies(std::string bytes) {
  std::vector<Batch> complete;
  bool broken = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reader_.Feed(bytes);
    while (std::optional<RespValue> reply = reader_.Next()) {
      if (waiting_.empty()) break;  // cannot happen: one reply a command
      Batch& front = waiting_.front();
      if (front.skip_first) {
        front.skip_first = false;
        if (reply->is_error()) front.auth_error = std::move(*reply);
      } else {
        front.replies.push_back(std::move(*reply));
      }
      --front.expected;
      if (front.expected == 0) {
        // AUTH refused: the batch's commands were refused too; the AUTH
        // error says why.
        if (front.auth_error) {
          front.replies.assign(front.replies.size(), *front.auth_error);
        }
        complete.push_back(std::move(front));
        waiting_.pop_front();
      }
    }
    broken = !reader_.ok();
  }
  for (Batch& batch : complete) batch.done(grpc::Status::OK, batch.replies);
  if (broken) {
    Fail(grpc::Status(grpc::StatusCode::INTERNAL,
                      "unreadable reply from the loop"));
  }
}

}  // namespace frontier::urlfrontier
