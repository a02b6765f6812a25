#include "llm/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>

namespace evk {
namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw Error("curl_global_init failed");
  });
}

struct EasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    std::string value = line.substr(colon + 1);
    size_t b = value.find_first_not_of(" \t");
    size_t e = value.find_last_not_of(" \t\r\n");
    (*headers)[name] = b == std::string::npos ? "" : value.substr(b, e - b + 1);
  }
  return size * n;
}

bool is_loopback(const std::string& url) {
  for (const char* h : {"://127.", "://localhost:", "://localhost/", "://[::1]"})
    if (url.find(h) != std::string::npos) return true;
  return false;
}

long to_ms(double s) { return std::max(1L, static_cast<long>(std::llround(s * 1000))); }

}  // namespace

HttpResponse http_post(const HttpRequest& req) {
  global_init();
  std::unique_ptr<CURL, EasyDeleter> h(curl_easy_init());
  if (!h) throw Error("curl_easy_init failed");
  std::unique_ptr<curl_slist, ListDeleter> list;
  for (const auto& hd : req.headers) {
    curl_slist* l = curl_slist_append(list.get(), hd.c_str());
    if (!l) throw Error("curl_slist_append failed");
    list.release();
    list.reset(l);
  }
  HttpResponse resp;
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = h.get();
  curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, req.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &resp.headers);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, to_ms(req.connect_timeout_s));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, to_ms(req.timeout_s));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode
  curl_easy_setopt(c, CURLOPT_USERAGENT, "evokernel/0.1");
  if (is_loopback(req.url)) curl_easy_setopt(c, CURLOPT_NOPROXY, "*");

  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &resp.total_s);
  if (rc != CURLE_OK) {
    long os_errno = 0;
    curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
    std::string msg = errbuf[0] ? std::string(errbuf) : curl_easy_strerror(rc);
    if (os_errno) msg += std::string(" [") + std::strerror(static_cast<int>(os_errno)) + "]";
    throw TransportError(rc, static_cast<int>(os_errno), msg);
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
  return resp;
}

std::optional<double> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  try {
    size_t pos = 0;
    double s = std::stod(value, &pos);
    if (pos == value.size() && s >= 0 && std::isfinite(s)) return s;
  } catch (const std::exception&) {
  }
  time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

}  // namespace evk
