#include "server/urlfrontier_door.h"

#include <arpa/inet.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <netinet/in.h>

#include <chrono>
#include <utility>

#include "server/log.h"
#include "server/urlfrontier_credentials.h"

namespace frontier {
namespace {

// Callers are pruned of the gone ones each time the list doubles past this.
constexpr size_t kPruneAt = 256;
// Stop(): how long the gRPC server gives calls to end before cancelling.
constexpr auto kShutdownGrace = std::chrono::milliseconds(300);

std::string GrpcAddress(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// gRPC's peer text ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", after
// the "grpc:" the Service puts first) as an address, for protected mode.
// False for anything else.
bool ParsePeer(std::string_view peer, sockaddr_storage* out) {
  if (peer.substr(0, 5) == "grpc:") peer.remove_prefix(5);
  std::string host;
  if (peer.substr(0, 5) == "ipv4:") {
    peer.remove_prefix(5);
    host = std::string(peer.substr(0, peer.rfind(':')));
    auto* in = reinterpret_cast<sockaddr_in*>(out);
    in->sin_family = AF_INET;
    return inet_pton(AF_INET, host.c_str(), &in->sin_addr) == 1;
  }
  if (peer.substr(0, 6) == "ipv6:[") {
    peer.remove_prefix(6);
    host = std::string(peer.substr(0, peer.find(']')));
    auto* in6 = reinterpret_cast<sockaddr_in6*>(out);
    in6->sin6_family = AF_INET6;
    return inet_pton(AF_INET6, host.c_str(), &in6->sin6_addr) == 1;
  }
  return false;
}

}  // namespace

// The loop's side of one internal client: where its id lives once the
// loop has opened it.
struct ClientSlot {
  uint64_t id = 0;  // loop thread only
};

// Released replies go to the reply thread, to the Caller if it is still
// there.
class UrlFrontierDoor::Sink : public ReplySink {
 public:
  Sink(std::weak_ptr<urlfrontier::ReplyReceiver> receiver,
       urlfrontier::ReplyThread* thread)
      : receiver_(std::move(receiver)), thread_(thread) {}

  void Deliver(std::string bytes) override {
    thread_->Post([receiver = receiver_, bytes = std::move(bytes)]() mutable {
      if (auto r = receiver.lock()) r->OnReplies(std::move(bytes));
    });
  }
  void Closed(std::string_view why) override {
    grpc::Status status =
        why.empty() ? grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                   "the server closed the call's client")
                    : grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                   std::string(why));
    thread_->Post([receiver = receiver_, status = std::move(status)] {
      if (auto r = receiver.lock()) r->OnClosed(status);
    });
  }

 private:
  std::weak_ptr<urlfrontier::ReplyReceiver> receiver_;
  urlfrontier::ReplyThread* thread_;
};

class UrlFrontierDoor::Transport : public urlfrontier::CommandTransport {
 public:
  Transport(UrlFrontierDoor* door, std::shared_ptr<ClientSlot> slot)
      : door_(door), slot_(std::move(slot)) {}
  ~Transport() override {
    InternalClients* clients = &door_->clients_;
    door_->Post([clients, slot = slot_] { clients->CloseInternal(slot->id); });
  }
  bool Send(std::string bytes) override {
    InternalClients* clients = &door_->clients_;
    return door_->Post([clients, slot = slot_, bytes = std::move(bytes)] {
      clients->FeedInternal(slot->id, bytes);
    });
  }

 private:
  UrlFrontierDoor* door_;
  std::shared_ptr<ClientSlot> slot_;
};

UrlFrontierDoor::UrlFrontierDoor(event_base* base, InternalClients& clients)
    : clients_(clients), inbox_(base) {}

StatusOr<std::unique_ptr<UrlFrontierDoor>> UrlFrontierDoor::Start(
    event_base* base, const Config& config, InternalClients& clients) {
  std::unique_ptr<UrlFrontierDoor> door(new UrlFrontierDoor(base, clients));
  if (!door->inbox_.ok()) {
    return Status::IOError("urlfrontier-port: no eventfd for the loop");
  }
  auto credentials = UrlFrontierCredentials(config);
  if (!credentials.ok()) return credentials.status();
  grpc::ServerBuilder builder;
  std::vector<std::unique_ptr<int>> ports;
  for (const std::string& host : config.bind) {
    ports.push_back(std::make_unique<int>(0));
    builder.AddListeningPort(GrpcAddress(host, config.urlfrontier_port),
                             *credentials,
                             ports.back().get());
  }
  urlfrontier::ServiceOptions options;
  options.channel = door.get();
  options.stats = &door->rpc_stats_;
  options.node = GrpcAddress(config.bind.empty() ? "127.0.0.1" : config.bind[0],
                             config.urlfrontier_port);
  door->service_ = std::make_unique<urlfrontier::Service>(std::move(options));
  builder.RegisterService(door->service_.get());
  door->server_ = builder.BuildAndStart();
  if (door->server_ == nullptr) {
    return Status::IOError("urlfrontier-port " +
                           std::to_string(config.urlfrontier_port) +
                           ": cannot listen on the bind addresses");
  }
  for (const auto& port : ports) {
    if (*port == 0) {
      door->Stop();
      return Status::IOError("urlfrontier-port " +
                             std::to_string(config.urlfrontier_port) +
                             ": cannot listen on every bind address");
    }
    door->port_ = *port;
  }
  Log(LogLevel::kNotice, "URL Frontier gRPC API on port %d", door->port_);
  return door;
}

UrlFrontierDoor::~UrlFrontierDoor() { Stop(); }

bool UrlFrontierDoor::Post(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return false;
  inbox_.Post(std::move(fn));
  return true;
}

std::unique_ptr<urlfrontier::CommandTransport> UrlFrontierDoor::Open(
    std::weak_ptr<urlfrontier::ReplyReceiver> receiver, std::string peer) {
  auto slot = std::make_shared<ClientSlot>();
  auto sink = std::make_shared<Sink>(receiver, &replies_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (receivers_.size() >= kPruneAt && receivers_.size() % kPruneAt == 0) {
      receivers_.remove_if([](const auto& r) { return r.expired(); });
    }
    receivers_.push_back(receiver);
  }
  InternalClients* clients = &clients_;
  sockaddr_storage addr{};
  const bool known = ParsePeer(peer, &addr);
  // Posted before any of its Send()s: the inbox runs closures in order.
  Post([clients, slot, sink = std::move(sink), peer = std::move(peer), addr,
        known]() mutable {
    slot->id = clients->OpenInternal(
        std::move(sink), std::move(peer),
        known ? reinterpret_cast<const sockaddr*>(&addr) : nullptr);
  });
  return std::make_unique<Transport>(this, std::move(slot));
}

void UrlFrontierDoor::Stop() {
  std::list<std::weak_ptr<urlfrontier::ReplyReceiver>> receivers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && server_ == nullptr) return;
    stopping_ = true;
    receivers.swap(receivers_);
  }
  // The loop will not answer any more: every waiting call fails now, so
  // that each ends (its reactor finishes) without it.
  for (const auto& weak : receivers) {
    if (auto receiver = weak.lock()) {
      receiver->OnClosed(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                      "frontierd is shutting down"));
    }
  }
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
    server_->Wait();
    server_.reset();
  }
  replies_.Stop();
}

}  // namespace frontier
