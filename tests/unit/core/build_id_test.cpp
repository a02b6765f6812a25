// core/build_id.h: the linker's build id where there is one (checked against readelf), the
// file's sha256 where there is none.
#include "core/build_id.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/hash.h"
#include "core/process.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

TEST(BuildId, AnElfFileIsKnownByTheBuildIdReadelfShows) {
  std::string id = build_identity("/proc/self/exe");
  // readelf's own /proc/self/exe would be readelf: it is given this test's path.
  ProcessResult r = run_process({"readelf", "-n", std::filesystem::read_symlink("/proc/self/exe").string()});
  ASSERT_TRUE(r.ok()) << r.err;
  auto at = r.out.find("Build ID: ");
  if (at == std::string::npos) {  // linked without one: the bytes decide
    EXPECT_EQ(id.rfind("sha256:", 0), 0u) << id;
    return;
  }
  std::string hex = r.out.substr(at + 10, r.out.find('\n', at) - at - 10);
  EXPECT_EQ(id, "build-id:" + hex);
}

TEST(BuildId, AFileWithoutOneIsKnownByItsBytes) {
  TempDir d("evk-buildid-");
  std::ofstream(d.path() / "x") << "not an ELF file";
  EXPECT_EQ(build_identity(d.path() / "x"), "sha256:" + sha256_hex("not an ELF file"));
  std::ofstream(d.path() / "elf") << "\x7f" "ELF truncated";
  EXPECT_EQ(build_identity(d.path() / "elf"), "sha256:" + sha256_hex("\x7f" "ELF truncated"));
  EXPECT_EQ(build_identity(d.path() / "missing"), "");
}

}  // namespace
}  // namespace evk
