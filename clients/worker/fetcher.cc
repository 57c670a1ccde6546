#include "fetcher.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;

// libcurl is initialised once per process, before any other thread exists.
bool GlobalInit() {
  static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  return ok;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

struct Fetcher::Transfer {
  CURL* easy = nullptr;
  FetchResult result;
  int64_t max_bytes = 0;
  Clock::time_point start;
  char error_buffer[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (easy != nullptr) curl_easy_cleanup(easy);
  }

  // Keeps at most max_bytes; past that, ends the transfer (the write error
  // it causes is not a failure: `truncated` says what happened).
  static size_t OnBody(char* data, size_t size, size_t count, void* self) {
    auto* t = static_cast<Transfer*>(self);
    size_t n = size * count;
    size_t room = static_cast<size_t>(t->max_bytes) - t->result.body.size();
    if (n > room) {
      t->result.body.append(data, room);
      t->result.truncated = true;
      return CURL_WRITEFUNC_ERROR;
    }
    t->result.body.append(data, n);
    return n;
  }

  // Keeps Retry-After of the last response: a new status line (a redirect
  // followed) forgets the previous response's.
  static size_t OnHeader(char* data, size_t size, size_t count, void* self) {
    auto* t = static_cast<Transfer*>(self);
    size_t n = size * count;
    std::string_view line(data, n);
    if (StartsWithNoCase(line, "http/")) {
      t->result.retry_after.clear();
    } else if (StartsWithNoCase(line, "retry-after:")) {
      t->result.retry_after = std::string(Trim(line.substr(12)));
    }
    return n;
  }
};

std::unique_ptr<Fetcher> Fetcher::Create(FetchSettings settings,
                                         std::string* error) {
  if (!GlobalInit()) {
    *error = "curl_global_init failed";
    return nullptr;
  }
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) {
    *error = "curl_multi_init failed";
    return nullptr;
  }
  return std::unique_ptr<Fetcher>(new Fetcher(std::move(settings), multi));
}

Fetcher::Fetcher(FetchSettings settings, CURLM* multi)
    : settings_(std::move(settings)), multi_(multi) {}

Fetcher::~Fetcher() {
  AbortAll();
  curl_multi_cleanup(multi_);
}

bool Fetcher::Start(const std::string& url) {
  auto t = std::make_unique<Transfer>();
  t->easy = curl_easy_init();
  if (t->easy == nullptr) return false;
  t->result.url = url;
  t->max_bytes = settings_.max_bytes;
  t->start = Clock::now();
  CURL* e = t->easy;
  bool ok =
      curl_easy_setopt(e, CURLOPT_URL, url.c_str()) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") ==
          CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION,
                       settings_.max_redirects > 0 ? 1L : 0L) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_MAXREDIRS,
                       static_cast<long>(settings_.max_redirects)) ==
          CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_USERAGENT, settings_.user_agent.c_str()) ==
          CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                       settings_.connect_timeout_ms) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, settings_.timeout_ms) ==
          CURLE_OK &&
      // Every encoding this libcurl decodes; the cap applies after decoding.
      curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Transfer::OnBody) ==
          CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get()) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &Transfer::OnHeader) ==
          CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get()) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error_buffer) == CURLE_OK &&
      curl_easy_setopt(e, CURLOPT_PRIVATE, t.get()) == CURLE_OK &&
      curl_multi_add_handle(multi_, e) == CURLM_OK;
  if (!ok) return false;
  transfers_.push_back(std::move(t));
  return true;
}

void Fetcher::Wait(std::vector<curl_waitfd>& extra_fds,
                   std::chrono::milliseconds timeout) {
  int running = 0;
  curl_multi_perform(multi_, &running);
  for (curl_waitfd& fd : extra_fds) fd.revents = 0;
  curl_multi_poll(multi_, extra_fds.data(),
                  static_cast<unsigned>(extra_fds.size()),
                  static_cast<int>(timeout.count()), nullptr);
  curl_multi_perform(multi_, &running);
}

std::vector<FetchResult> Fetcher::Collect() {
  std::vector<FetchResult> done;
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* e = msg->easy_handle;
    CURLcode code = msg->data.result;
    auto it = std::find_if(transfers_.begin(), transfers_.end(),
                           [e](const auto& t) { return t->easy == e; });
    if (it == transfers_.end()) continue;
    Transfer& t = **it;
    FetchResult& r = t.result;
    // Stopping at the size cap is how a truncated body ends, not an error.
    r.error = (code == CURLE_WRITE_ERROR && r.truncated) ? CURLE_OK : code;
    if (r.error != CURLE_OK) {
      r.error_text = t.error_buffer[0] != '\0' ? t.error_buffer
                                               : curl_easy_strerror(r.error);
    }
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_getinfo(e, CURLINFO_REDIRECT_COUNT, &r.redirects);
    char* text = nullptr;
    if (curl_easy_getinfo(e, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK &&
        text != nullptr) {
      r.final_url = text;
    } else {
      r.final_url = r.url;
    }
    text = nullptr;
    if (curl_easy_getinfo(e, CURLINFO_CONTENT_TYPE, &text) == CURLE_OK &&
        text != nullptr) {
      r.content_type = text;
    }
    r.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       Clock::now() - t.start)
                       .count();
    curl_multi_remove_handle(multi_, e);
    done.push_back(std::move(r));
    transfers_.erase(it);
  }
  return done;
}

std::vector<std::string> Fetcher::AbortAll() {
  std::vector<std::string> urls;
  for (auto& t : transfers_) {
    curl_multi_remove_handle(multi_, t->easy);
    urls.push_back(t->result.url);
  }
  transfers_.clear();
  return urls;
}

}  // namespace worker
