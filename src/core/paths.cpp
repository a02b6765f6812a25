#include "core/paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace evk {
namespace fs = std::filesystem;

fs::path self_exe_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : p.parent_path();
}

fs::path data_root() {
  if (const char* h = std::getenv("EVK_HOME"); h && *h) return h;
  return EVK_SOURCE_DIR;
}

fs::path runner_path() {
  if (const char* r = std::getenv("EVK_RUNNER"); r && *r) return r;
  fs::path beside = self_exe_dir() / "evk-runner";
  if (fs::exists(beside)) return beside;
  return fs::path(EVK_BINARY_DIR) / "runner" / "evk-runner";
}

std::string python_path() {
  if (const char* p = std::getenv("EVK_PYTHON"); p && *p) return p;
  return "/usr/bin/python3";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw UsageError("cannot read " + p.string() + ": check that the file exists");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file_atomic(const fs::path& p, std::string_view bytes) {
  fs::path tmp = p;
  tmp += ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno("cannot create " + tmp.string());
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      ::close(fd);
      throw_errno("cannot write " + tmp.string());
    }
    off += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  fs::rename(tmp, p);
}

}  // namespace evk
