// LoopbackSite: a small multi-host web site for the worker's end-to-end
// tests, served by libevent's evhttp on a thread of the test process. Each
// host is its own loopback address (127.0.0.2, 127.0.0.3, ...) on one
// shared port, so URLs like http://127.0.0.3:<port>/page name different
// hosts to the frontier. Every request is logged with when it arrived and
// when its reply was sent, so tests can check what was fetched and how
// politely.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

struct event_base;
struct evhttp;
struct evhttp_request;
struct evhttp_connection;

namespace frontier::itest {

struct SitePage {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones
  std::chrono::milliseconds delay{0};  // before the reply is sent
};

struct SiteRequest {
  std::string host;  // the address the request came to, e.g. "127.0.0.3"
  std::string path;  // the request target, e.g. "/a?x=1"
  std::string user_agent;
  int status = 0;
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;  // reply sent
  bool answered = false;  // false: the client left before the reply
};

class LoopbackSite {
 public:
  // Serves hosts 127.0.0.2 ... 127.0.0.<1 + hosts> on one free port.
  explicit LoopbackSite(int hosts);
  // Stops the server thread and closes every connection.
  ~LoopbackSite();
  LoopbackSite(const LoopbackSite&) = delete;
  LoopbackSite& operator=(const LoopbackSite&) = delete;

  // Empty if the site is serving; else what went wrong.
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  // "127.0.0.<2 + i>"
  static std::string Host(int i);
  // "http://127.0.0.<2 + i>:<port><path>"
  std::string Url(int i, const std::string& path) const;

  // Adds or replaces a page (before or while serving). Paths not added
  // answer 404.
  void SetPage(int host, const std::string& path, SitePage page);
  // Every request so far, in arrival order.
  std::vector<SiteRequest> Requests() const;

 private:
  struct Pending;
  static void OnRequest(evhttp_request* req, void* self);
  static void OnReplyDue(int, short, void* pending);
  static void OnConnectionClosed(evhttp_connection* conn, void* self);
  void Reply(Pending* p);

  std::string error_;
  int port_ = 0;
  event_base* base_ = nullptr;
  evhttp* http_ = nullptr;
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, SitePage> pages_;
  std::vector<SiteRequest> log_;
  std::vector<std::unique_ptr<Pending>> pending_;  // loop thread only
};

}  // namespace frontier::itest
