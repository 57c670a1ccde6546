#include "server/connection.h"

#include <utility>

namespace frontier {
namespace {

// Keep the input buffer's allocation between commands unless it grew
// large (one big request), so that ordinary traffic does not reallocate.
constexpr size_t kKeepInputCapacity = 64 * 1024;

}  // namespace

Connection::Connection(uint64_t id, BufferEventPtr bev,
                       const ConnectionType& type, RespLimits limits,
                       std::string address, int64_t now_ms,
                       ConnectionEvents* events)
    : events_(events), type_(&type), bev_(std::move(bev)), parser_(limits) {
  info_.id = id;
  info_.address = std::move(address);
  info_.created_ms = now_ms;
  info_.last_interaction_ms = now_ms;
  bufferevent_setcb(bev_.get(), &Connection::ReadCallback,
                    &Connection::WriteCallback, &Connection::EventCallback,
                    this);
  bufferevent_enable(bev_.get(), EV_READ | EV_WRITE);
}

Connection::Connection(uint64_t id, std::shared_ptr<ReplySink> sink,
                       RespLimits limits, std::string address, int64_t now_ms)
    : sink_(std::move(sink)), parser_(limits) {
  info_.id = id;
  info_.address = std::move(address);
  info_.created_ms = now_ms;
  info_.last_interaction_ms = now_ms;
}

void Connection::ReadCallback(bufferevent*, void* arg) {
  auto* conn = static_cast<Connection*>(arg);
  conn->events_->OnReadable(*conn);
}

void Connection::WriteCallback(bufferevent*, void* arg) {
  auto* conn = static_cast<Connection*>(arg);
  conn->events_->OnDrained(*conn);
}

void Connection::EventCallback(bufferevent*, short what, void* arg) {
  // A TLS bufferevent reports its finished handshake this way; that is
  // the connection starting, not ending.
  if (what == BEV_EVENT_CONNECTED) return;
  auto* conn = static_cast<Connection*>(arg);
  conn->events_->OnDisconnected(*conn, what);
}

void Connection::StopReading() {
  if (bev_) bufferevent_disable(bev_.get(), EV_READ);
}

void Connection::StartReading() { bufferevent_enable(bev_.get(), EV_READ); }

void Connection::ReadSocket() {
  evbuffer* in = bufferevent_get_input(bev_.get());
  size_t n = evbuffer_get_length(in);
  if (n == 0) return;
  size_t old = input_.size();
  input_.resize(old + n);
  evbuffer_remove(in, input_.data() + old, n);
}

RespParser::Result Connection::NextCommand() {
  size_t consumed = 0;
  RespParser::Result r =
      parser_.Parse(std::string_view(input_).substr(input_pos_), &consumed);
  input_pos_ += consumed;
  return r;
}

void Connection::CompactInput() {
  if (input_pos_ == 0) return;
  if (input_pos_ == input_.size()) {
    input_.clear();
    if (input_.capacity() > kKeepInputCapacity) input_.shrink_to_fit();
  } else {
    input_.erase(0, input_pos_);
  }
  input_pos_ = 0;
}

void Connection::ReleasePending() {
  if (sink_ && !pending_.empty()) {
    sink_->Deliver(std::move(pending_));
    pending_.clear();
    return;
  }
  if (!pending_.empty()) {
    bufferevent_write(bev_.get(), pending_.data(), pending_.size());
    pending_.clear();
  }
}

size_t Connection::unsent_bytes() const {
  if (!bev_) return 0;  // an internal client's replies leave at release
  return evbuffer_get_length(bufferevent_get_output(bev_.get()));
}

}  // namespace frontier
