#include "verify/toolchain.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

#include "backends/backend.h"
#include "backends/registry.h"
#include "core/build_id.h"
#include "core/hash.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  return {std::istream_iterator<std::string>(in), {}};
}

struct TreeFile {
  std::string rel;
  fs::path path;
  uintmax_t size;
  int64_t mtime;
};

// The regular files under `dir`, sorted by relative path; symlinks followed (a header may be
// one), a folder that cannot be read skipped.
std::vector<TreeFile> tree_files(const fs::path& dir) {
  std::vector<TreeFile> files;
  std::error_code ec;
  auto opts = fs::directory_options::follow_directory_symlink |
              fs::directory_options::skip_permission_denied;
  for (fs::recursive_directory_iterator it(dir, opts, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code fe;
    if (!it->is_regular_file(fe)) continue;
    auto size = it->file_size(fe);
    auto mtime = it->last_write_time(fe);
    if (fe) continue;
    files.push_back({fs::relative(it->path(), dir, fe).generic_string(), it->path(), size,
                     static_cast<int64_t>(mtime.time_since_epoch().count())});
  }
  std::sort(files.begin(), files.end(),
            [](const TreeFile& a, const TreeFile& b) { return a.rel < b.rel; });
  return files;
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::vector<fs::path> include_dirs(const std::string& compile_command) {
  static const std::vector<std::string> flags = {"-isystem", "-iquote", "-idirafter", "-I"};
  std::vector<fs::path> dirs;
  std::vector<std::string> w = words(compile_command);
  for (size_t i = 0; i < w.size(); ++i) {
    for (const std::string& f : flags) {
      if (w[i].rfind(f, 0) != 0) continue;
      if (w[i].size() > f.size())
        dirs.emplace_back(w[i].substr(f.size()));
      else if (i + 1 < w.size())
        dirs.emplace_back(w[++i]);
      break;
    }
  }
  return dirs;
}

std::string tree_digest(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "";
  std::vector<TreeFile> files = tree_files(dir);
  std::string stamp;  // names, sizes and times: what says the bytes must be read again
  for (const TreeFile& f : files)
    stamp += f.rel + '\0' + std::to_string(f.size) + '\0' + std::to_string(f.mtime) + '\n';

  static std::mutex mu;
  static std::map<fs::path, std::pair<std::string, std::string>> memo;  // dir -> (stamp, digest)
  {
    std::lock_guard lk(mu);
    auto it = memo.find(dir);
    if (it != memo.end() && it->second.first == stamp) return it->second.second;
  }
  std::string all;
  for (const TreeFile& f : files) all += f.rel + '\0' + sha256_hex(file_bytes(f.path)) + '\n';
  std::string digest = sha256_hex(all);
  std::lock_guard lk(mu);
  memo[dir] = {stamp, digest};
  return digest;
}

fs::path backend_runner(const Backend& backend) {
  fs::path exe = runner_path();
  std::string name = backend.runner(fs::path()).executable;
  return name == exe.filename() ? exe : exe.parent_path() / name;
}

std::string toolchain_fingerprint(const Backend& backend) {
  const std::string command = backend.compile_command();
  std::string id = build_identity("/proc/self/exe") + '\n' +
                   build_identity(backend_runner(backend)) + '\n' + command + '\n';
  for (const std::string& w : words(command))
    if (w.rfind("evk-", 0) == 0)
      id += w + ' ' + build_identity(runner_path().parent_path() / w) + '\n';
  // A modeled latency is the replay's (verify/trace_replay.h): its emulator decides the verdict.
  if (const std::string& replay = backend_row(backend.name()).replay; !replay.empty())
    id += replay + ' ' + build_identity(runner_path().parent_path() / replay) + '\n';
  // So is its eager baseline: the reference library's kernels, in the verdict's eager_ms.
  if (const std::string& eager = backend_row(backend.name()).eager; !eager.empty())
    id += eager + ' ' + build_identity(runner_path().parent_path() / eager) + '\n';
  {
    static std::mutex mu;
    static std::map<std::string, std::string> versions;  // compile command -> `--version`
    std::lock_guard lk(mu);
    auto [it, fresh] = versions.try_emplace(command);
    if (fresh) {
      std::string compiler = command.substr(0, command.find(' '));
      ProcessOptions po;
      po.timeout_s = 30;
      if (!compiler.empty()) it->second = run_process({compiler, "--version"}, po).out;
    }
    id += it->second;
  }
  for (const fs::path& d : include_dirs(command)) id += d.string() + ' ' + tree_digest(d) + '\n';
  return sha256_hex(id);
}

}  // namespace evk
