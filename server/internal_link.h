// InternalLink: one connection from this node to another frontierd node
// (cluster forwarding and MADD's fan-out, docs/cluster.md), on the
// server's own event loop, no thread of its own. The transport is a
// libevent bufferevent: a plain socket, or TLS (bufferevent_openssl) when
// given a client context from NewLinkTlsContext, which verifies the
// peer's certificate against tls-ca-cert-file and the address it was
// reached at. hiredis does only RESP: commands are formatted with
// redisFormatCommandArgv, replies parsed with its redisReader. (Debian
// bookworm's hiredis, 0.14, has no TLS of its own: docs/cluster.md.)
//
// Contract: replies come back through `reply`, one per command, in the
// order the commands were sent. When the connection fails or the peer
// closes it, every command still without its reply gets `reply(nullptr)`,
// in order, then `closed` is called, once; from then on the link does
// nothing (Send is ignored) and its owner destroys it, but not from inside
// one of its callbacks. Destroying a link calls nothing.
//
// Not thread-safe: everything runs on the loop thread.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "cluster/cluster_map.h"
#include "server/config.h"
#include "server/libevent_ptr.h"
#include "util/status.h"

struct redisReader;
struct redisReply;

namespace frontier {

struct LinkTlsDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using LinkTlsContext = std::unique_ptr<SSL_CTX, LinkTlsDeleter>;

// The client side of TLS for internal links (tls-cluster yes): protocols
// as tls-protocols, the peer verified against tls-ca-cert-file, and this
// node's tls-cert-file/tls-key-file presented as its client certificate
// (the peers ask for one with tls-auth-clients yes). InvalidArgument,
// naming the directive, if a file cannot be used.
StatusOr<LinkTlsContext> NewLinkTlsContext(const Config& config);

class InternalLink {
 public:
  struct Callbacks {
    // A command's reply (freed after the call), or nullptr: the link failed
    // with the command unanswered.
    std::function<void(const redisReply* reply)> reply;
    // The link is down (after the last reply(nullptr)).
    std::function<void()> closed;
  };

  // Starts connecting to `to`, with TLS if `tls` is not null (it must
  // outlive the link). Resolving a host name blocks, as hiredis's connect
  // did; an address does not. Unavailable if the connection cannot even
  // be started (then nothing is called).
  static StatusOr<std::unique_ptr<InternalLink>> Open(
      event_base* base, const cluster::Address& to, SSL_CTX* tls,
      Callbacks callbacks);

  ~InternalLink();
  InternalLink(const InternalLink&) = delete;
  InternalLink& operator=(const InternalLink&) = delete;

  // Sends `argv` as one command (buffered until the connection is up).
  void Send(std::span<const std::string> argv);

  // The connection was established (the TLS handshake done, with TLS).
  bool connected() const { return connected_; }
  // Why it closed ("" while it is up), for messages.
  const std::string& error() const { return error_; }

 private:
  InternalLink(Callbacks callbacks, bool tls);
  static void OnRead(bufferevent* bev, void* arg);
  static void OnEvent(bufferevent* bev, short what, void* arg);
  // Fails every command without its reply, then `closed`.
  void Close(std::string why);

  Callbacks callbacks_;
  const bool tls_;
  BufferEventPtr bev_;
  redisReader* reader_ = nullptr;
  size_t unanswered_ = 0;
  bool connected_ = false;
  bool closed_ = false;
  std::string error_;
};

}  // namespace frontier
