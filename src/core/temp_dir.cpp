#include "core/temp_dir.h"

#include <stdlib.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"

namespace evk {
namespace fs = std::filesystem;

TempDir::TempDir(const std::string& prefix, fs::path parent) {
  if (parent.empty()) {
    const char* t = std::getenv("TMPDIR");
    parent = t && *t ? t : "/tmp";
  }
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) throw_errno("cannot create a temporary folder in " + parent.string());
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);  // best effort: a destructor must not throw
}

}  // namespace evk
