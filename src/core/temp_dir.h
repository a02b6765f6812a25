// A private temporary folder (mkdtemp, mode 0700) removed with everything in it when the
// object goes out of scope.
#pragma once
#include <filesystem>

namespace evk {

class TempDir {
 public:
  // Creates <parent>/<prefix>XXXXXX; parent defaults to $TMPDIR or /tmp.
  explicit TempDir(const std::string& prefix, std::filesystem::path parent = {});
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace evk
