#include "server/etcd_client.h"

#include <event2/buffer.h>
#include <event2/http.h>

#include <charconv>
#include <memory>

#include "cluster/cluster_map.h"
#include "cluster/etcd_json.h"
#include "server/libevent_ptr.h"

namespace frontier {
namespace {

struct ConnectionDeleter {
  void operator()(evhttp_connection* c) const { evhttp_connection_free(c); }
};

// What one request came back with, filled in by its callbacks.
struct Outcome {
  bool done = false;
  int code = 0;  // HTTP status; 0 if no answer
  std::string body;
  std::string error;
  event_base* base = nullptr;
};

const char* RequestErrorName(evhttp_request_error error) {
  switch (error) {
    case EVREQ_HTTP_TIMEOUT:
      return "timed out";
    case EVREQ_HTTP_EOF:
      return "connection closed";
    case EVREQ_HTTP_INVALID_HEADER:
      return "invalid answer";
    case EVREQ_HTTP_BUFFER_ERROR:
      return "connection refused or reset";
    case EVREQ_HTTP_REQUEST_CANCEL:
      return "cancelled";
    case EVREQ_HTTP_DATA_TOO_LONG:
      return "answer too long";
  }
  return "failed";
}

void OnDone(evhttp_request* req, void* arg) {
  auto* out = static_cast<Outcome*>(arg);
  out->done = true;
  if (req != nullptr && evhttp_request_get_response_code(req) != 0) {
    out->code = evhttp_request_get_response_code(req);
    evbuffer* in = evhttp_request_get_input_buffer(req);
    const size_t n = evbuffer_get_length(in);
    out->body.resize(n);
    evbuffer_copyout(in, out->body.data(), n);
  } else if (out->error.empty()) {
    out->error = "no answer (refused, closed or timed out)";
  }
  event_base_loopexit(out->base, nullptr);
}

void OnError(evhttp_request_error error, void* arg) {
  static_cast<Outcome*>(arg)->error = RequestErrorName(error);
}

}  // namespace

std::string EtcdEndpoint::ToString() const {
  return "http://" + cluster::Address{host, port}.ToString();
}

StatusOr<std::vector<EtcdEndpoint>> ParseEtcdEndpoints(std::string_view text) {
  std::vector<EtcdEndpoint> out;
  while (true) {
    const size_t comma = text.find(',');
    std::string_view one = text.substr(0, comma);
    while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
    while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
    constexpr std::string_view kScheme = "http://";
    std::string_view rest = one;
    if (rest.substr(0, kScheme.size()) == kScheme) {
      rest.remove_prefix(kScheme.size());
      if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    } else {
      rest = {};
    }
    cluster::Address address;
    std::string error;
    if (rest.empty() || !cluster::ParseAddress(rest, &address, &error)) {
      return Status::InvalidArgument(
          "cluster-etcd '" + std::string(one) +
          "' is not an etcd endpoint http://host:port (https is not "
          "supported: reach etcd over a private network or loopback)");
    }
    out.push_back(EtcdEndpoint{address.host, address.port});
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

EtcdClient::EtcdClient(std::vector<EtcdEndpoint> endpoints, int timeout_ms)
    : endpoints_(std::move(endpoints)), timeout_ms_(timeout_ms) {}

StatusOr<std::string> EtcdClient::Call(std::string_view path,
                                       const std::string& body) {
  std::string failures;
  for (size_t i = 0; i < endpoints_.size(); ++i) {
    const size_t at = (preferred_ + i) % endpoints_.size();
    StatusOr<std::string> answer = CallOne(endpoints_[at], path, body);
    if (answer.ok()) {
      preferred_ = at;
      return answer;
    }
    if (!failures.empty()) failures += "; ";
    failures += endpoints_[at].ToString() + ": " + answer.status().message();
  }
  return Status::Unavailable("etcd " + std::string(path) + " failed: " +
                             failures);
}

StatusOr<std::string> EtcdClient::CallOne(const EtcdEndpoint& endpoint,
                                          std::string_view path,
                                          const std::string& body) {
  EventBasePtr base(event_base_new());
  if (!base) return Status::IOError("cannot create an event base");
  std::unique_ptr<evhttp_connection, ConnectionDeleter> conn(
      evhttp_connection_base_new(base.get(), nullptr, endpoint.host.c_str(),
                                 static_cast<uint16_t>(endpoint.port)));
  if (!conn) return Status::IOError("cannot create a connection");
  timeval timeout{timeout_ms_ / 1000, (timeout_ms_ % 1000) * 1000};
  evhttp_connection_set_timeout_tv(conn.get(), &timeout);
  evhttp_connection_set_retries(conn.get(), 0);
  Outcome outcome;
  outcome.base = base.get();
  // Owned by the connection once made; freed by it after OnDone.
  evhttp_request* req = evhttp_request_new(&OnDone, &outcome);
  if (req == nullptr) return Status::IOError("cannot create a request");
  evhttp_request_set_error_cb(req, &OnError);
  evkeyvalq* headers = evhttp_request_get_output_headers(req);
  evhttp_add_header(headers, "Host", endpoint.host.c_str());
  evhttp_add_header(headers, "Content-Type", "application/json");
  evbuffer_add(evhttp_request_get_output_buffer(req), body.data(),
               body.size());
  const std::string uri(path);
  if (evhttp_make_request(conn.get(), req, EVHTTP_REQ_POST, uri.c_str()) !=
      0) {
    return Status::IOError("cannot send the request");
  }
  event_base_dispatch(base.get());
  if (!outcome.done) return Status::IOError("no answer");
  if (outcome.code == 0) return Status::IOError(outcome.error);
  if (outcome.code != 200) {
    std::string message = cluster::ErrorMessage(outcome.body);
    return Status::IOError("HTTP " + std::to_string(outcome.code) +
                           (message.empty() ? "" : ": " + message));
  }
  return std::move(outcome.body);
}

}  // namespace frontier
