// Effective configuration: built-in defaults < evokernel.toml < environment < command-line flags.
// Keys are flat and dotted ("memory.epsilon"); a TOML table [memory] with epsilon = 0.1 sets it.
// Environment: EVK_ + the key upper-cased with dots as underscores (EVK_MEMORY_EPSILON).
// Every value remembers where it came from, for `evokernel config show`.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace evk {

struct ConfigKey {
  std::string key;
  std::string default_value;
  std::string help;
  bool secret = false;  // never printed; shown as "(set)" or "(unset)"
};

// The table of every key evokernel knows, with its default.
const std::vector<ConfigKey>& config_keys();

struct ConfigValue {
  std::string value;
  std::string source;  // "default", "file:<path>", "env:<NAME>", "flag"
};

class Config {
 public:
  // Defaults only.
  Config();
  // Defaults, then the file (explicit path, else <workspace>/evokernel.toml if present), then
  // the environment. An unknown key or a malformed file is a UsageError naming it.
  static Config load(const std::filesystem::path& workspace_root,
                     const std::string& explicit_path);

  void set(const std::string& key, const std::string& value, const std::string& source);
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  const ConfigValue& at(const std::string& key) const;

  std::string str(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  bool boolean(const std::string& key) const;

  const std::map<std::string, ConfigValue>& values() const { return values_; }

  // Human-readable listing with sources; secrets masked.
  std::string show() const;

 private:
  void load_file(const std::filesystem::path& path);
  void load_env();
  std::map<std::string, ConfigValue> values_;
};

}  // namespace evk
