// The Server's internal clients (server/internal_clients.h): connections
// without a socket for the URL Frontier door. Part of the Server class.
#include "server/auth.h"
#include "server/clock.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/server.h"

namespace frontier {

uint64_t Server::OpenInternal(std::shared_ptr<ReplySink> sink,
                              std::string address, const sockaddr* peer) {
  if (stopping_) {
    sink->Closed("");
    return 0;
  }
  // As Admit() for a socket client; a peer of unknown address is not
  // loopback.
  sockaddr unknown{};
  unknown.sa_family = AF_UNSPEC;
  if (ProtectedModeRefuses(config_, peer != nullptr ? peer : &unknown)) {
    Log(LogLevel::kVerbose,
        "Refused %s: protected mode, and no password is set", address.c_str());
    sink->Closed(errors::kDenied);
    return 0;
  }
  const uint64_t id = ++next_client_id_;
  RespLimits limits;
  limits.max_bulk_len = config_.proto_max_bulk_len;
  limits.max_multibulk_len = config_.proto_max_multibulk_len;
  auto conn = std::make_unique<Connection>(id, std::move(sink), limits,
                                           std::move(address), NowMs());
  // As Admit() decides for a socket client.
  ClientInfo& info = conn->info();
  info.authenticated = !AuthRequired(config_);
  info.role = info.authenticated ? Role::kAdmin : Role::kNone;
  connections_.emplace(id, std::move(conn));
  ++stats_.total_connections_received;
  UpdateClientCounts();
  return id;
}

void Server::FeedInternal(uint64_t id, std::string_view bytes) {
  Connection* conn = Find(id);
  if (conn == nullptr || !conn->internal() ||
      conn->state() == Connection::State::kClosing ||
      conn->state() == Connection::State::kClosed) {
    return;
  }
  conn->AppendInput(bytes);
  conn->info().last_interaction_ms = NowMs();
  // While held or blocked the bytes wait, as a socket client's input does.
  if (conn->state() == Connection::State::kOpen) ProcessInput(*conn);
}

void Server::CloseInternal(uint64_t id) {
  Connection* conn = Find(id);
  if (conn != nullptr && conn->internal()) Close(*conn);
}

}  // namespace frontier
