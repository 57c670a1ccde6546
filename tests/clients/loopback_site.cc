#include "clients/loopback_site.h"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/thread.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "support/frontierd_process.h"

namespace frontier::itest {

using Clock = std::chrono::steady_clock;

// A request whose reply waits for its delay. Owned by pending_; the
// connection's close callback cancels it if the client leaves first.
struct LoopbackSite::Pending {
  LoopbackSite* site = nullptr;
  evhttp_request* req = nullptr;
  evhttp_connection* conn = nullptr;
  event* timer = nullptr;
  size_t log_index = 0;
  SitePage page;
  ~Pending() {
    if (timer != nullptr) event_free(timer);
  }
};

std::string LoopbackSite::Host(int i) {
  return "127.0.0." + std::to_string(2 + i);
}

std::string LoopbackSite::Url(int i, const std::string& path) const {
  return "http://" + Host(i) + ":" + std::to_string(port_) + path;
}

LoopbackSite::LoopbackSite(int hosts) {
  static const bool threads_ok = evthread_use_pthreads() == 0;
  if (!threads_ok) {
    error_ = "evthread_use_pthreads failed";
    return;
  }
  base_ = event_base_new();
  http_ = base_ != nullptr ? evhttp_new(base_) : nullptr;
  if (http_ == nullptr) {
    error_ = "cannot create the event base";
    return;
  }
  evhttp_set_gencb(http_, &LoopbackSite::OnRequest, this);
  // One port for every host: take a free one on the first address, then
  // bind the others to it; another process may hold it there, so retry.
  for (int attempt = 0; attempt < 20 && port_ == 0; ++attempt) {
    int candidate = PickFreePort();
    std::vector<evhttp_bound_socket*> bound;
    bool ok = true;
    for (int i = 0; i < hosts && ok; ++i) {
      evhttp_bound_socket* s = evhttp_bind_socket_with_handle(
          http_, Host(i).c_str(), static_cast<uint16_t>(candidate));
      if (s == nullptr)
        ok = false;
      else
        bound.push_back(s);
    }
    if (ok) {
      port_ = candidate;
    } else {
      for (evhttp_bound_socket* s : bound) evhttp_del_accept_socket(http_, s);
    }
  }
  if (port_ == 0) {
    error_ = "cannot bind the loopback hosts to one port";
    return;
  }
  thread_ =
      std::thread([this] { event_base_loop(base_, EVLOOP_NO_EXIT_ON_EMPTY); });
}

LoopbackSite::~LoopbackSite() {
  if (thread_.joinable()) {
    event_base_loopbreak(base_);
    thread_.join();
  }
  pending_.clear();  // timers first: they point into the requests
  if (http_ != nullptr) evhttp_free(http_);
  if (base_ != nullptr) event_base_free(base_);
}

void LoopbackSite::SetPage(int host, const std::string& path, SitePage page) {
  std::lock_guard<std::mutex> lock(mu_);
  pages_[{Host(host), path}] = std::move(page);
}

std::vector<SiteRequest> LoopbackSite::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

void LoopbackSite::OnRequest(evhttp_request* req, void* self) {
  auto* site = static_cast<LoopbackSite*>(self);
  auto p = std::make_unique<Pending>();
  p->site = site;
  p->req = req;
  p->conn = evhttp_request_get_connection(req);

  SiteRequest entry;
  entry.start = Clock::now();
  // The address the client connected to is the host it asked for.
  sockaddr_storage local = {};
  socklen_t len = sizeof local;
  evutil_socket_t fd =
      bufferevent_getfd(evhttp_connection_get_bufferevent(p->conn));
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
      local.ss_family == AF_INET) {
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&local)->sin_addr, text,
              sizeof text);
    entry.host = text;
  }
  entry.path = evhttp_request_get_uri(req);
  if (const char* ua = evhttp_find_header(evhttp_request_get_input_headers(req),
                                          "User-Agent")) {
    entry.user_agent = ua;
  }
  {
    std::lock_guard<std::mutex> lock(site->mu_);
    auto it = site->pages_.find({entry.host, entry.path});
    if (it != site->pages_.end()) {
      p->page = it->second;
    } else {
      p->page.status = 404;
      p->page.body = "<html><body>not found</body></html>";
    }
    entry.status = p->page.status;
    p->log_index = site->log_.size();
    site->log_.push_back(entry);
  }
  evhttp_connection_set_closecb(p->conn, &LoopbackSite::OnConnectionClosed,
                                site);
  p->timer = evtimer_new(site->base_, &LoopbackSite::OnReplyDue, p.get());
  timeval tv = {
      static_cast<time_t>(p->page.delay.count() / 1000),
      static_cast<suseconds_t>((p->page.delay.count() % 1000) * 1000)};
  evtimer_add(p->timer, &tv);
  site->pending_.push_back(std::move(p));
}

void LoopbackSite::OnReplyDue(int, short, void* pending) {
  auto* p = static_cast<Pending*>(pending);
  p->site->Reply(p);
}

void LoopbackSite::Reply(Pending* p) {
  evkeyvalq* headers = evhttp_request_get_output_headers(p->req);
  evhttp_add_header(headers, "Content-Type", "text/html; charset=utf-8");
  for (const auto& [name, value] : p->page.headers) {
    evhttp_remove_header(headers, name.c_str());
    evhttp_add_header(headers, name.c_str(), value.c_str());
  }
  evbuffer* body = evbuffer_new();
  evbuffer_add(body, p->page.body.data(), p->page.body.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    log_[p->log_index].end = Clock::now();
    log_[p->log_index].answered = true;
  }
  evhttp_send_reply(p->req, p->page.status, "Status", body);
  evbuffer_free(body);
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [p](const auto& q) { return q.get() == p; });
  pending_.erase(it);
}

void LoopbackSite::OnConnectionClosed(evhttp_connection* conn, void* self) {
  auto* site = static_cast<LoopbackSite*>(self);
  std::lock_guard<std::mutex> lock(site->mu_);
  for (auto it = site->pending_.begin(); it != site->pending_.end();) {
    if ((*it)->conn == conn) {
      site->log_[(*it)->log_index].end = Clock::now();
      it = site->pending_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace frontier::itest
