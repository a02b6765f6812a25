#include "channels.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.h"

namespace evk::runner {
namespace {

void write_all(int fd, const char* data, size_t size, const std::string& what) {
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::write(fd, data + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(what);
    off += static_cast<size_t>(n);
  }
}

}  // namespace

void Reporter::emit(const nlohmann::json& e) {
  std::string s = "\n" + e.dump() + "\n";
  write_all(fd_, s.data(), s.size(), "lost the verdict channel");
}

std::optional<nlohmann::json> CommandReader::next() {
  while (true) {
    size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      if (line.empty()) continue;
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) throw Error("malformed command: " + line);
      return j;
    }
    char chunk[4096];
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    buf_.append(chunk, static_cast<size_t>(n));
  }
}

Mapping::Mapping(int fd, size_t bytes, bool writable) : n_(bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw_errno("cannot map the shared region (fd " + std::to_string(fd) + ")");
  p_ = static_cast<uint8_t*>(p);
}

Mapping::~Mapping() {
  if (p_) ::munmap(p_, n_);
}

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

}  // namespace evk::runner
