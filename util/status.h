// Status: the one error convention across layers (leveldb style).
//
// A Status is OK or carries a code and a message. Functions that can fail
// return a Status (or StatusOr<T>); no exception crosses a layer boundary.
// The server turns a non-OK Status into RESP text in exactly one place
// (server/reply.h: ReplyStatus).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace frontier {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // bad input from a client: nothing was changed
    kNotFound,
    kIOError,          // the disk or Berkeley DB failed: nothing was changed
    kCorruption,       // on-disk data is not what we wrote
    kBusy,             // a transient condition (e.g. deadlock); retry
    kUnavailable,      // a service it needs (a peer, etcd) is unreachable
    // A replication group's answers to a write (docs/replication.md). The
    // codes say what happened, the messages say it in plain words; the
    // server gives each code the word its clients match (server/reply.h).
    kReadOnly,         // this site is a replica: it takes no write
    kNoReplicas,       // too few sites reachable for a quorum: nothing written
    kNotAcknowledged,  // committed here, not acknowledged by a quorum in time
    kTryAgain,         // aborted by a passing conflict: nothing stored; retry
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status NotFound(std::string_view msg) {
    return Status(Code::kNotFound, msg);
  }
  static Status IOError(std::string_view msg) {
    return Status(Code::kIOError, msg);
  }
  static Status Corruption(std::string_view msg) {
    return Status(Code::kCorruption, msg);
  }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  static Status Unavailable(std::string_view msg) {
    return Status(Code::kUnavailable, msg);
  }
  static Status ReadOnly(std::string_view msg) {
    return Status(Code::kReadOnly, msg);
  }
  static Status NoReplicas(std::string_view msg) {
    return Status(Code::kNoReplicas, msg);
  }
  static Status NotAcknowledged(std::string_view msg) {
    return Status(Code::kNotAcknowledged, msg);
  }
  static Status TryAgain(std::string_view msg) {
    return Status(Code::kTryAgain, msg);
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsUnavailable() const { return code_ == Code::kUnavailable; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsTryAgain() const { return code_ == Code::kTryAgain; }
  // The human-readable message, without a code prefix.
  const std::string& message() const { return message_; }
  // "IO error: <message>" style, for logs.
  std::string ToString() const;

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status explaining why there is none.
template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // Precondition: ok().
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace frontier
