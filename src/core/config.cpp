#include "core/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.h"
#include "core/paths.h"

namespace evk {
namespace fs = std::filesystem;

// The keys by part of the system, in the order `config show` lists them.
static std::vector<ConfigKey> tasks_and_verifier_keys() {
  return {
      // Tasks and the oracle
      {"tasks.max_elements", "16777216",
       "fit tasks so that their inputs hold at most this many elements (0: never fit)"},
      {"tasks.lint", "warn",
       "fairness lint of each task before a run attempts it: warn, skip (leave degenerate "
       "tasks out) or off"},
      {"tasks.max_gflop", "4",
       "fit tasks so that one forward does at most this many GFLOP (0: no compute bound)"},
      {"oracle.timeout_s", "120",
       "time limit of one reference and of each extra input set, seconds (a task past it is "
       "skipped, with the reason)"},
      {"oracle.timing_runs", "20", "timed eager forward calls for the PyTorch baseline"},
      {"oracle.python", "/usr/bin/python3", "Python interpreter with torch importable"},
      // Verifier
      {"verify.threads", "1", "threads for candidates and the PyTorch baseline alike"},
      {"verify.seeds", "3", "seeds (fresh inputs) checked for correctness"},
      {"verify.edge_set", "true",
       "also check an edge-case input set (+-0, subnormals, large values, NaN)"},
      {"verify.second_shape", "true", "also check a second, smaller shape with odd extents"},
      {"verify.atol", "0.01", "absolute tolerance of the allclose check"},
      {"verify.rtol", "0.01", "relative tolerance of the allclose check"},
      {"verify.rel_norm_bound", "0.01", "bound on ||out - ref|| / ||ref||"},
      {"verify.compile_timeout_s", "120", "wall-clock limit of one compilation"},
      {"verify.run_timeout_s", "60", "wall-clock limit of one runner process"},
      {"verify.address_space_mb", "8192", "address-space limit of the runner, MiB"},
      {"verify.timing_budget_ms", "1000", "time spent in timed calls per candidate"},
      {"verify.timing_max_trials", "200", "most timed calls per candidate"},
      {"verify.jobs", "1", "verifications run at once"},
  };
}

static std::vector<ConfigKey> executor_keys() {
  return {
      // Where verifications run (src/run/executor.h)
      {"verify.executor", "local",
       "local (this machine) or slurm (one batch job per candidate, see README: Slurm)"},
      {"slurm.partition", "", "partition the jobs go to (empty: the cluster's default)"},
      {"slurm.args", "",
       "more sbatch arguments, space-separated, e.g. \"--gres=gpu:1 --time=00:20:00\""},
      {"slurm.max_in_flight", "8", "Slurm jobs submitted and not yet answered, at most"},
      {"slurm.poll_s", "0.5", "period of squeue and verdict-file polling, seconds"},
      {"slurm.retries", "1", "resubmissions of a job lost to the infrastructure"},
      {"slurm.start_timeout_s", "0",
       "a job still pending after this long is cancelled and recorded as infra (0: wait)"},
      {"slurm.evokernel", "",
       "the evokernel binary the nodes run (default: this one; it must be on the shared "
       "filesystem)"},
      {"slurm.node_scratch", "",
       "node-local scratch workspace of verify-job (default: $TMPDIR/evk-node-<hash>)"},
      {"slurm.keep_files", "false", "keep job, verdict and log files under <workspace>/slurm"},
  };
}

static std::vector<ConfigKey> llm_keys() {
  return {
      // LLM
      {"llm.model", "sim", "provider:model, replay:FILE or sim"},
      {"llm.base_url", "https://api.openai.com/v1", "OpenAI-compatible endpoint"},
      {"llm.api_key", "", "API key (EVK_API_KEY or OPENAI_API_KEY take precedence)", true},
      {"llm.temperature", "0.7", "sampling temperature"},
      {"llm.max_tokens", "4096", "most completion tokens per call"},
      {"llm.connect_timeout_s", "10", "connection timeout"},
      {"llm.timeout_s", "300", "total timeout of one call"},
      {"llm.retries", "4", "retries on timeouts, connection errors, 429 and 5xx"},
      {"llm.concurrency", "4", "calls in flight at once, shared by all callers"},
      {"llm.budget_calls", "0", "most calls per run (0: unlimited)"},
      {"llm.budget_tokens", "0", "most tokens per run (0: unlimited)"},
      {"llm.budget_usd", "0", "most US dollars per run (0: unlimited)"},
      {"llm.budget_task_calls", "0", "most calls per task (0: unlimited)"},
      {"llm.budget_task_tokens", "0", "most tokens per task (0: unlimited)"},
      {"llm.budget_task_usd", "0", "most US dollars per task (0: unlimited)"},
      {"llm.prices", "",
       "USD per million tokens, in/out, per model: \"gpt-5.2=1.75/14, deepseek-chat=0.28/0.42\""},
      {"llm.extra_body", "",
       "JSON object merged into every request body (null removes a field), e.g. "
       "{\"reasoning_effort\": \"high\"}"},
      {"llm.record", "", "append every request and reply to this JSON Lines cassette"},
      {"llm.retry_base_s", "1", "first back-off delay; doubles per retry, with jitter"},
      {"llm.retry_max_s", "30", "longest back-off delay"},
      {"llm.retry_after_max_s", "120", "longest Retry-After honoured; a longer one fails the call"},
  };
}

static std::vector<ConfigKey> agent_and_memory_keys() {
  return {
      // Offline coder (sim)
      {"sim.pitfalls", "true",
       "the sim coder makes its cold-start and refining mistakes (false: always pitfall-free)"},
      {"sim.pitfall_scale", "1.0", "multiplier on every sim pitfall probability"},
      // Memory
      {"memory.policy", "value", "retrieval policy: value, blend, similarity, none"},
      {"memory.n", "6", "items retrieved into a context (N)"},
      {"memory.lambda", "5", "recall pool size factor: K = lambda * N"},
      {"memory.epsilon", "0.1", "epsilon-greedy exploration over Q"},
      {"memory.epsilon_decay", "1.0", "multiplier applied to epsilon after each attempt"},
      {"memory.alpha", "0.2", "Q-value learning rate"},
      {"memory.blend_w", "0.5", "weight of Q in the blend policy"},
      {"memory.sigma_min", "0.1", "floor of the reward normaliser's standard deviation"},
      {"memory.clip", "3", "normalised refining rewards are clipped to [-clip, clip]"},
      {"memory.seed", "0", "random seed of retrieval"},
      {"memory.baseline", "none",
       "what Q learns from: none (the reward, the paper) or task (the reward minus the running "
       "mean of the same task's rewards at that stage)"},
      {"memory.dedup_threshold", "0.95",
       "cosine similarity at or above which a new item of the same kind, task and outcome is "
       "merged into an existing one"},
      {"memory.auto_seed", "true",
       "seed a new workspace's memory from knowledge/<backend>/ on first open"},
      // Agent
      {"memory.diagnosis", "true",
       "refining retrieval conditioned on the start point's diagnosed bound: the bound joins "
       "the query and Q2 is learnt per bound state as well as per item (false: the paper's "
       "query state alone)"},
      {"memory.summarize", "rules",
       "who writes a best practice's text: rules (a diff and the figures) or model (also one "
       "call to the coder model for what changed, why it paid and which bound it fixed, stored "
       "above the rule summary)"},
      // The optional model auditor (agent/auditor.h)
      {"audit.model", "",
       "the model auditor, asked about every kernel that would be credited as a task's new best: "
       "openai:MODEL, \"cmd:TOOL ARGS\" or replay:FILE (empty: no auditor)"},
      {"audit.base_url", "",
       "OpenAI-compatible endpoint of an openai: auditor (empty: llm.base_url); key, retries "
       "and budgets are the llm.* ones, shared with the coder"},
      {"audit.policy", "withhold",
       "what an answer other than clean does: withhold (no credit as best, no Q update, no best "
       "practice) or warn (recorded and shown, credited)"},
      {"agent.budget", "30", "attempts per task across drafting and refining"},
      {"agent.seed", "0", "seed of the run (the sim coder and sampling)"},
      {"agent.confirm", "true",
       "re-time a refinement whose speed-up over the best is within the noise band interleaved "
       "with the best (ABAB) before it is credited"},
      {"agent.confirm_band", "0.25",
       "speed-ups below 1 + band (or the two timings' relative IQRs, if larger) are confirmed"},
  };
}

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = [] {
    std::vector<ConfigKey> all;
    for (auto part : {tasks_and_verifier_keys, executor_keys, llm_keys, agent_and_memory_keys})
      for (auto& k : part()) all.push_back(std::move(k));
    return all;
  }();
  return keys;
}

static const ConfigKey* find_key(const std::string& key) {
  for (const auto& k : config_keys())
    if (k.key == key) return &k;
  return nullptr;
}

Config::Config() {
  for (const auto& k : config_keys()) values_[k.key] = {k.default_value, "default"};
}

void Config::set(const std::string& key, const std::string& value, const std::string& source) {
  if (!find_key(key))
    throw UsageError("unknown config key '" + key +
                     "': run `evokernel config show` to list the keys");
  values_[key] = {value, source};
}

const ConfigValue& Config::at(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw Error("config key '" + key + "' is not defined");
  return it->second;
}

std::string Config::str(const std::string& key) const {
  return at(key).value;
}

int64_t Config::integer(const std::string& key) const {
  const auto& v = at(key);
  try {
    size_t pos = 0;
    int64_t x = std::stoll(v.value, &pos);
    if (pos == v.value.size()) return x;
  } catch (const std::exception&) {
  }
  throw UsageError("config '" + key + "' = '" + v.value + "' (from " + v.source +
                   ") is not an integer");
}

double Config::real(const std::string& key) const {
  const auto& v = at(key);
  try {
    size_t pos = 0;
    double x = std::stod(v.value, &pos);
    if (pos == v.value.size()) return x;
  } catch (const std::exception&) {
  }
  throw UsageError("config '" + key + "' = '" + v.value + "' (from " + v.source +
                   ") is not a number");
}

bool Config::boolean(const std::string& key) const {
  const auto& v = at(key).value;
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off" || v.empty()) return false;
  throw UsageError("config '" + key + "' = '" + v + "' is not a boolean (use true or false)");
}

static std::string toml_scalar(const toml::node& n, const std::string& key) {
  if (auto s = n.value<std::string>()) return *s;
  if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
  if (n.is_integer()) return std::to_string(*n.value<int64_t>());
  if (n.is_floating_point()) return fmt::format("{}", *n.value<double>());
  throw UsageError("config key '" + key + "' must be a string, number or boolean");
}

// Every key is SECTION.NAME: a table nested deeper is no key, and recursing into it without
// a bound would let a file of a million [a.a.a...] levels overflow the stack.
static void flatten(const toml::table& t, const std::string& prefix,
                    std::vector<std::pair<std::string, std::string>>& out, int depth = 0) {
  for (const auto& [k, node] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table()) {
      if (depth >= 4)
        throw UsageError("config table [" + key.substr(0, 80) +
                         "] is nested too deep: keys are SECTION.NAME");
      flatten(*sub, key, out, depth + 1);
    } else {
      out.emplace_back(key, toml_scalar(node, key));
    }
  }
}

// The end of the string that opens at text[i] (a quote): the index of its last character, or
// of the newline that cuts a one-line string short (toml++ then reports it).
static size_t string_end(const std::string& text, size_t i) {
  const char q = text[i];
  const size_t n = text.compare(i, 3, std::string(3, q)) == 0 ? 3 : 1;
  for (size_t j = i + n; j < text.size(); ++j) {
    if (q == '"' && text[j] == '\\') {
      ++j;
    } else if (text.compare(j, n, std::string(n, q)) == 0) {
      return j + n - 1;
    } else if (n == 1 && text[j] == '\n') {
      return j - 1;
    }
  }
  return text.size();
}

// toml++ makes (and frees) one table per component of a dotted key, recursively: a key path
// of a hundred thousand components ([a.a.a...]) overflows the stack inside it. Keys here are
// SECTION.NAME, so a path longer than kMaxKeyPath is refused before toml++ sees the file.
// Dots are counted outside strings and comments, from the last character that ends a key.
// Outside strings and comments TOML is ASCII, and toml++ 3.3 reaches __builtin_unreachable
// (undefined behaviour) when it asks whether a non-ASCII character there is whitespace (found
// by fuzz_config: `[llé]`): such a byte is refused here too.
static void check_key_paths(const std::string& text, const fs::path& path) {
  constexpr int kMaxKeyPath = 16;
  int dots = 0, line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const size_t end = std::min(string_end(text, i), text.size());
      line += static_cast<int>(std::count(text.begin() + static_cast<long>(i),
                                          text.begin() + static_cast<long>(end), '\n'));
      i = end;
    } else if (c == '#') {
      i = std::min(text.find('\n', i), text.size()) - 1;
    } else if (c == '.' && ++dots > kMaxKeyPath) {
      throw UsageError(
          fmt::format("config file {}:{}: a key path of more than {} parts: keys "
                      "are SECTION.NAME",
                      path.string(), line, kMaxKeyPath));
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      throw UsageError(
          fmt::format("config file {}:{}: a non-ASCII character outside a string "
                      "or comment: keys are ASCII, text goes in quotes",
                      path.string(), line));
    } else if (c == '\n' || c == '=' || c == '[' || c == ']' || c == '{' || c == '}' || c == ',') {
      line += c == '\n';
      dots = 0;
    }
  }
}

void Config::load_file(const fs::path& path) {
  toml::table t;
  try {
    check_key_paths(read_file(path), path);
    t = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw UsageError(fmt::format("config file {}:{}:{}: {} (fix the TOML syntax)", path.string(),
                                 b.line, b.column, e.description()));
  }
  std::vector<std::pair<std::string, std::string>> kv;
  try {
    flatten(t, "", kv);
  } catch (const UsageError& e) {
    throw UsageError("config file " + path.string() + ": " + e.what());
  }
  for (const auto& [k, v] : kv) {
    if (!find_key(k))
      throw UsageError("unknown key '" + k + "' in config file " + path.string() +
                       ": run `evokernel config show` to list the keys");
    set(k, v, "file:" + path.string());
  }
}

static std::string env_name(const std::string& key) {
  std::string n = "EVK_";
  for (char c : key) n.push_back(c == '.' ? '_' : static_cast<char>(std::toupper(c)));
  return n;
}

void Config::load_env() {
  for (const auto& k : config_keys()) {
    std::string n = env_name(k.key);
    if (const char* v = std::getenv(n.c_str())) set(k.key, v, "env:" + n);
  }
  // The usual names for the key win over the config file.
  for (const char* n : {"OPENAI_API_KEY", "EVK_API_KEY"})
    if (const char* v = std::getenv(n); v && *v) set("llm.api_key", v, std::string("env:") + n);
}

Config Config::load(const fs::path& workspace_root, const std::string& explicit_path) {
  Config c;
  if (!explicit_path.empty()) {
    if (!fs::exists(explicit_path))
      throw UsageError("config file " + explicit_path +
                       " does not exist: fix the --config path or create it");
    c.load_file(explicit_path);
  } else if (fs::exists(workspace_root / "evokernel.toml")) {
    c.load_file(workspace_root / "evokernel.toml");
  }
  c.load_env();
  return c;
}

std::string Config::show() const {
  std::string out;
  for (const auto& k : config_keys()) {
    const auto& v = at(k.key);
    std::string shown = k.secret ? (v.value.empty() ? "(unset)" : "(set)") : v.value;
    out += fmt::format("{:<26} = {:<28} # {}; {}\n", k.key, shown, v.source, k.help);
  }
  return out;
}

}  // namespace evk
