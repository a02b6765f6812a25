// A private temporary folder (mkdtemp under the system temp folder) removed with everything in
// it when the object goes: where the backends preprocess candidates and build baselines.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "core/error.h"

namespace evk {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "evk-scratch-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw Error("cannot create a temporary folder: " + tmpl);
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace evk
