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

namespace {

// The layout the running executable belongs to. Decided once: the executable does not move.
struct Layout {
  fs::path data;  // empty when neither installed nor in the build tree
  fs::path runners;
  fs::path looked;  // where an installed tree's data was looked for
};

bool inside(const fs::path& dir, const fs::path& root) {
  auto d = dir.lexically_normal().string(), r = root.lexically_normal().string();
  return d.size() >= r.size() && d.compare(0, r.size(), r) == 0 &&
         (d.size() == r.size() || d[r.size()] == '/' || r.back() == '/');
}

Layout find_layout() {
  fs::path exe = self_exe_dir();
  fs::path prefix = exe.parent_path();
  Layout l{prefix / "share" / "evokernel", prefix / "libexec" / "evokernel",
           prefix / "share" / "evokernel"};
  std::error_code ec;
  if (fs::is_directory(l.data, ec)) return l;
  // In the build tree (a build folder is never installed): the checkout's data.
  std::error_code ec2;
  fs::path build = fs::weakly_canonical(EVK_BINARY_DIR, ec2);
  if (!ec2 && inside(fs::weakly_canonical(exe, ec2), build))
    return Layout{EVK_SOURCE_DIR, build / "runner", l.looked};
  return Layout{{}, exe, l.looked};
}

const Layout& layout() {
  static const Layout l = find_layout();
  return l;
}

}  // namespace

fs::path data_root() {
  fs::path root;
  if (const char* h = std::getenv("EVK_HOME"); h && *h) {
    root = h;
  } else {
    root = layout().data;
    if (root.empty())
      throw UsageError("evokernel's data is missing: looked in " + layout().looked.string() +
                       " (an installation's share/evokernel); reinstall, or set EVK_HOME to "
                       "the folder holding suites/, knowledge/, oracle/ and prompts/");
  }
  if (std::string bad = check_data_root(root); !bad.empty()) throw UsageError(bad);
  return root;
}

std::string check_data_root(const fs::path& root) {
  std::string missing;
  std::error_code ec;
  for (std::string_view d : kDataFolders)
    if (!fs::is_directory(root / d, ec)) missing += (missing.empty() ? "" : ", ") + std::string(d);
  if (missing.empty()) return "";
  const char* h = std::getenv("EVK_HOME");
  return "evokernel's data in " + root.string() + " is incomplete (missing " + missing +
         "): " + (h && *h ? "EVK_HOME points at the wrong folder" : "reinstall, or set EVK_HOME") +
         " (it must hold suites/, knowledge/, oracle/ and prompts/)";
}

fs::path runner_dir() {
  if (const char* r = std::getenv("EVK_RUNNER"); r && *r) return fs::path(r).parent_path();
  return layout().runners;
}

fs::path runner_path() {
  if (const char* r = std::getenv("EVK_RUNNER"); r && *r) return r;
  return runner_dir() / "evk-runner";
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
