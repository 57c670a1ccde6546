// Many HTTP fetches at once on libcurl's multi interface, driven from the
// caller's loop: Start() adds a transfer, Wait() sleeps until a socket (of a
// transfer or one of the caller's own descriptors) is ready, Collect()
// returns the transfers that ended. Single-threaded; not thread-safe.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace worker {

struct FetchSettings {
  std::string user_agent;
  long connect_timeout_ms = 10000;
  long timeout_ms = 30000;
  int64_t max_bytes = 5 << 20;
  int max_redirects = 5;
};

// What one fetch found. `error` is CURLE_OK when an HTTP response came
// back (whatever its status); the body is cut at max_bytes (`truncated`).
struct FetchResult {
  std::string url;            // as handed to Start()
  std::string final_url;      // after redirects
  CURLcode error = CURLE_OK;  // transport error, CURLE_OK if a response came
  std::string error_text;     // curl's message for `error`
  long status = 0;            // HTTP status of the last response, 0 if none
  long redirects = 0;         // redirects followed
  std::string content_type;   // of the last response, may be empty
  std::string retry_after;    // Retry-After of the last response, verbatim
  std::string body;
  bool truncated = false;
  int64_t elapsed_ms = 0;  // from Start() to the end
};

class Fetcher {
 public:
  // Returns nullptr and sets *error if libcurl cannot be set up.
  static std::unique_ptr<Fetcher> Create(FetchSettings settings,
                                         std::string* error);
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // Starts fetching `url`. False (nothing started) if libcurl refuses it;
  // the caller then reports it as a failed fetch.
  bool Start(const std::string& url);
  // Runs the transfers until one of them or one of `extra_fds` (watched for
  // reading; their revents set on return) is ready, or `timeout` passes.
  void Wait(std::vector<curl_waitfd>& extra_fds,
            std::chrono::milliseconds timeout);
  // The transfers that ended since the last call.
  std::vector<FetchResult> Collect();
  // Ends every transfer still running; returns their URLs.
  std::vector<std::string> AbortAll();
  size_t in_flight() const { return transfers_.size(); }

 private:
  struct Transfer;
  explicit Fetcher(FetchSettings settings, CURLM* multi);

  FetchSettings settings_;
  CURLM* multi_;
  std::vector<std::unique_ptr<Transfer>> transfers_;
};

}  // namespace worker
