// Config precedence (defaults < file < environment < flags), each value's recorded source, and
// the errors a user meets for a bad key, file or value.
#include "core/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "core/error.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

// Sets an environment variable for the scope of one test.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const std::string& n, const std::string& v) : name(n) { ::setenv(n.c_str(), v.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(Config, EachLayerOverridesTheOneBelowAndSaysWhereItCameFrom) {
  TempDir ws("evk-config-");
  EXPECT_EQ(Config().at("memory.epsilon").source, "default");

  write(ws.path() / "evokernel.toml", "[memory]\nepsilon = 0.25\n[verify]\nthreads = 2\n");
  Config file_only = Config::load(ws.path(), "");
  EXPECT_DOUBLE_EQ(file_only.real("memory.epsilon"), 0.25);
  EXPECT_EQ(file_only.at("memory.epsilon").source.rfind("file:", 0), 0u);

  ScopedEnv env("EVK_MEMORY_EPSILON", "0.5");
  Config with_env = Config::load(ws.path(), "");
  EXPECT_DOUBLE_EQ(with_env.real("memory.epsilon"), 0.5);
  EXPECT_EQ(with_env.at("memory.epsilon").source, "env:EVK_MEMORY_EPSILON");
  EXPECT_EQ(with_env.integer("verify.threads"), 2);  // the file still holds for other keys

  with_env.set("memory.epsilon", "0.75", "flag");
  EXPECT_DOUBLE_EQ(with_env.real("memory.epsilon"), 0.75);
  EXPECT_EQ(with_env.at("memory.epsilon").source, "flag");
}

TEST(Config, AnExplicitFileReplacesTheWorkspaceOne) {
  TempDir ws("evk-config-");
  write(ws.path() / "evokernel.toml", "[memory]\nepsilon = 0.25\n");
  write(ws.path() / "other.toml", "[memory]\nepsilon = 0.3\n");
  EXPECT_DOUBLE_EQ(Config::load(ws.path(), (ws.path() / "other.toml").string()).real("memory.epsilon"),
                   0.3);
  EXPECT_THROW(Config::load(ws.path(), (ws.path() / "missing.toml").string()), UsageError);
}

TEST(Config, BadInputIsAUsageErrorNamingIt) {
  TempDir ws("evk-config-");
  auto message = [&](const std::string& toml) {
    write(ws.path() / "evokernel.toml", toml);
    try {
      Config::load(ws.path(), "");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("[memory]\nepsilonn = 0.1\n").find("epsilonn"), std::string::npos);
  EXPECT_NE(message("[memory\nepsilon = 0.1\n").find("TOML"), std::string::npos);

  Config c;
  EXPECT_THROW(c.set("no.such_key", "1", "flag"), UsageError);
  c.set("verify.threads", "two", "flag");
  try {
    (void)c.integer("verify.threads");
    FAIL() << "a non-integer was read as an integer";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("flag"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace evk
