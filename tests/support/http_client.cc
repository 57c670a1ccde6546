#include "support/http_client.h"

#include <cctype>

#include "support/frontierd_process.h"

namespace frontier::itest {

HttpResponse ParseHttpResponse(const std::string& raw) {
  HttpResponse r;
  r.raw = raw;
  const size_t end = raw.find("\r\n\r\n");
  if (raw.compare(0, 5, "HTTP/") != 0 || end == std::string::npos) return r;
  const size_t sp = raw.find(' ');
  if (sp == std::string::npos || sp > end) return r;
  r.status = std::atoi(raw.c_str() + sp + 1);
  size_t line = raw.find("\r\n") + 2;
  while (line < end) {
    size_t next = raw.find("\r\n", line);
    std::string h = raw.substr(line, next - line);
    const size_t colon = h.find(':');
    if (colon != std::string::npos) {
      std::string name = h.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(c));
      size_t v = colon + 1;
      while (v < h.size() && h[v] == ' ') ++v;
      r.headers[name] = h.substr(v);
    }
    line = next + 2;
  }
  r.body = raw.substr(end + 4);
  const std::string length = r.Header("content-length");
  if (!length.empty()) {
    r.body.resize(std::min(r.body.size(), std::stoul(length)));
  }
  return r;
}

HttpResponse HttpExchange(int port, const std::string& request,
                          std::chrono::milliseconds timeout) {
  RawConnection conn(port);
  if (!conn.ok() || !conn.Send(request)) return HttpResponse();
  bool closed = false;
  HttpResponse r = ParseHttpResponse(conn.ReadUntilClosed(timeout, &closed));
  r.closed = closed;
  return r;
}

HttpResponse HttpGet(int port, const std::string& path,
                     const std::vector<std::string>& extra_headers) {
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const std::string& h : extra_headers) request += h + "\r\n";
  request += "Connection: close\r\n\r\n";
  return HttpExchange(port, request);
}

std::string BasicAuthHeader(const std::string& user,
                            const std::string& password) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string in = user + ":" + password;
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[n & 63] : '=';
  }
  return "Authorization: Basic " + out;
}

}  // namespace frontier::itest
