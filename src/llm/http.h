// One HTTP POST over libcurl, owned by RAII handles; no retries, no interpretation of the
// status (that is the provider's job). Thread-safe: each call has its own easy handle, and
// curl_global_init runs once before the first.
// Loopback URLs never go through a proxy (so tests pass on machines with http_proxy set).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace evk {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  double connect_timeout_s = 10;
  double timeout_s = 300;  // whole transfer
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  double total_s = 0;
};

// The transfer itself failed (no complete response): curl_code is the CURLcode, os_errno the
// errno of the failing socket call (ECONNREFUSED...; 0 when none), message curl's own text.
struct TransportError : Error {
  TransportError(int code, int err, const std::string& msg)
      : Error(msg), curl_code(code), os_errno(err) {}
  int curl_code;
  int os_errno;
};

HttpResponse http_post(const HttpRequest& req);

// Seconds to wait from a Retry-After header value: delta-seconds or an HTTP date; nullopt
// when absent or unparseable.
std::optional<double> parse_retry_after(const std::string& value);

}  // namespace evk
