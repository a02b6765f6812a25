// Golden prompts: the TEXT a model is sent, per backend and method, from the real agent path:
// the agent talks to the fake OpenAI server over a real socket, with a real memory seeded from
// the backend's knowledge bundle and the real oracle. The cases are data
// (tests/data/prompt_golden/*.case, format in its README.md).
//
// Verdicts come from a scripted Executor: the verifier of each backend is tested by its own
// corpora, and cuda kernels cannot run here; what is under test is what the prompt shows of
// them. RealVerifierTargetsTheRunsBackend below checks the real verifier's side.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "agent/agent.h"
#include "backends/backend.h"
#include "core/paths.h"
#include "fake_openai.h"
#include "memory/knowledge.h"
#include "tasks/suite.h"

namespace evk {
namespace {
namespace fs = std::filesystem;

struct Check {
  int attempt = 0;
  std::string what;  // must, lacks, memory, nomemory
  std::string text;
  int line = 0;
};

struct Case {
  std::string name, backend, method;
  std::vector<std::string> verdicts;
  std::vector<Check> checks;
};

std::string header_value(const std::string& line, const std::string& key) {
  std::string prefix = "# " + key + ":";
  if (line.rfind(prefix, 0) != 0) return "";
  std::string v = line.substr(prefix.size());
  return v.substr(v.find_first_not_of(' '));
}

Case load_case(const fs::path& file) {
  Case c;
  c.name = file.stem().string();
  std::ifstream in(file);
  std::string line;
  static const std::regex check_re(R"(^(\d+) (must|lacks|memory|nomemory)(?: (.*))?$)");
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (line.rfind("#", 0) == 0) {
      if (auto v = header_value(line, "backend"); !v.empty()) c.backend = v;
      if (auto v = header_value(line, "method"); !v.empty()) c.method = v;
      if (auto v = header_value(line, "verdicts"); !v.empty()) {
        std::istringstream words(v);
        for (std::string w; words >> w;) c.verdicts.push_back(w);
      }
    } else if (std::regex_match(line, m, check_re)) {
      c.checks.push_back({std::stoi(m[1]), m[2], m[3], n});
    } else if (!c.checks.empty()) {
      c.checks.back().text += "\n" + line;  // a continuation: the text spans lines
    }
  }
  return c;
}

std::string reply_code(const std::string& backend, int n) {
  return fmt::format(
      "// golden reply {} for {}\n#include \"evokernel/kernel_abi.h\"\n"
      "extern \"C\" int evk_forward(const evk_tensor*, int32_t, evk_tensor*, int32_t) {{\n"
      "  return {};\n}}\n",
      n, backend, n - 1);
}

Verdict scripted_verdict(const std::string& spec, int n) {
  Verdict v;
  if (spec == "compile") {
    v.category = Category::Compile;
    v.feedback = fmt::format(
        "kernel.cpp:3:5: error: 'golden_{}' was not declared in this scope\n    3 |   golden_{}();\n"
        "      |   ^~~~~~~~~",
        n, n);
  } else if (spec == "mismatch") {
    v.compiled = true;
    v.category = Category::Mismatch;
    v.feedback = fmt::format("seed 0: out.0 differs at [3] (golden mismatch {})", n);
  } else if (spec.rfind("ok:", 0) == 0) {  // ok:LATENCY_MS or ok:LATENCY_MS:BOUND
    v.compiled = v.feasible = true;
    v.category = Category::Ok;
    v.latency_ms = std::stod(spec.substr(3));
    if (size_t c = spec.find(':', 3); c != std::string::npos) {
      v.diagnosis.bound = bound_from(spec.substr(c + 1)).value();
      v.diagnosis.basis = "golden";
      v.diagnosis.facts = {fmt::format("golden fact {}", n)};
    }
    v.roofline_fraction = 0.1;
    v.eager_ms = 4.0;  // the baseline this verdict was measured against
    v.feedback = fmt::format("correct on 2 seeds; median {} ms", v.latency_ms);
  } else {
    throw std::invalid_argument("unknown verdict " + spec);
  }
  return v;
}

// Answers the scripted verdicts in call order; records the backend each call was made for.
class ScriptedExecutor : public Executor {
 public:
  explicit ScriptedExecutor(std::vector<std::string> specs) : specs_(std::move(specs)) {}
  std::string name() const override { return "scripted"; }
  Verdict verify(const TaskInfo&, const std::string&, const VerifyOptions& opt) override {
    int n = ++calls_;
    backends_.push_back(opt.backend);
    Verdict v = scripted_verdict(specs_.at(static_cast<size_t>(n - 1)), n);
    // A modeled backend's verdict says what its modeled eager rests on (verifier.cpp).
    if (v.feasible && opt.backend == "ascendc")
      v.metrics["eager_basis"] = "library kernels; roofline for conv2d";
    return v;
  }
  std::vector<Verdict> verify_batch(const VerifyWork& work, const VerifyOptions& opt) override {
    std::vector<Verdict> out;
    for (const auto& [t, s] : work) out.push_back(verify(*t, s, opt));
    return out;
  }
  std::vector<std::string> backends_;

 private:
  std::vector<std::string> specs_;
  std::atomic<int> calls_{0};
};

// The "## " lines outside code fences: the prompt's section structure.
std::vector<std::string> sections_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool fence = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) fence = !fence;
    if (!fence && line.rfind("## ", 0) == 0) out.push_back(line.substr(0, line.find("{{")));
  }
  return out;
}

// Each section of the prompt is one of the template's, in its order: the guide's and the
// items' own headings are nested inside them.
void expect_template_sections(const std::string& prompt, const fs::path& tmpl) {
  auto want = sections_of(read_file(tmpl));
  auto got = sections_of(prompt);
  ASSERT_EQ(got.size(), want.size()) << ::testing::PrintToString(got);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].rfind(want[i], 0), 0u) << got[i];
}

class PromptGolden : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() /
                         ("evk-prompt-golden-" + std::to_string(::getpid())));
    fs::remove_all(*root_);
    ws_ = new Workspace(*root_);
  }
  static void TearDownTestSuite() {
    delete ws_;
    fs::remove_all(*root_);
    delete root_;
  }
  static fs::path* root_;
  static Workspace* ws_;
};
fs::path* PromptGolden::root_ = nullptr;
Workspace* PromptGolden::ws_ = nullptr;

std::vector<std::string> case_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(data_root() / "tests/data/prompt_golden"))
    if (e.path().extension() == ".case") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST_P(PromptGolden, ModelIsShownWhatTheCaseSays) {
  Case c = load_case(data_root() / "tests/data/prompt_golden" / (GetParam() + ".case"));
  ASSERT_FALSE(c.backend.empty());
  ASSERT_FALSE(c.verdicts.empty());
  const int budget = static_cast<int>(c.verdicts.size());

  fake::FakeOpenAI server;
  std::vector<fake::Behavior> script;
  for (int n = 1; n <= budget; ++n) {
    fake::Behavior b;
    b.text = "Here it is.\n```cpp\n" + reply_code(c.backend, n) + "```\n";
    script.push_back(b);
  }
  server.script(script);
  Config cfg;
  cfg.set("llm.base_url", server.base_url(), "test");
  cfg.set("llm.retries", "0", "test");
  Suite suite = load_suite(*ws_, (data_root() / "tests/data/agent_suite").string(), 0);
  const TaskInfo& task = find_task(suite, "relu_small");

  AgentOptions opt;
  opt.method = method_by_name(c.method);
  opt.budget = budget;
  opt.seed = 11;
  opt.prompt_dir = data_root() / "prompts";
  opt.verify = verify_options(cfg);
  opt.oracle = oracle_options(cfg);
  opt.oracle.timing_runs = 3;
  opt.memory = memory_params(cfg);
  opt.memory.epsilon = 0;  // greedy start points: the case knows which one is chosen

  auto llm = make_provider("openai:fake", cfg);
  auto backend = make_backend(c.backend);
  ScriptedExecutor ex(c.verdicts);
  Workspace run_ws(*root_ / "runs" / c.name);
  Agent agent(*ws_, run_ws, *llm, ex, *backend, opt);
  agent.run({&task});

  auto attempts = agent.log().all();
  ASSERT_EQ(attempts.size(), static_cast<size_t>(budget));
  auto bodies = server.bodies();
  ASSERT_EQ(bodies.size(), static_cast<size_t>(budget));
  // The verifier was asked for the run's backend, every time.
  EXPECT_EQ(ex.backends_, std::vector<std::string>(static_cast<size_t>(budget), c.backend));

  std::string guide = parse_knowledge(read_file(backend->knowledge_dir() / "guide.md"),
                                      c.backend, "guide.md")
                          .body;
  ASSERT_FALSE(guide.empty());
  std::string tensors = render_tensors(oracle_reference(*ws_, task, 0, opt.oracle));
  auto expand = [&](std::string t) {
    std::map<std::string, std::string> vars = {{"guide", nest_headings(guide)},
                                               {"language", backend->language()},
                                               {"file", backend->source_filename()},
                                               {"tensors", tensors}};
    for (int n = 1; n <= budget; ++n) {
      vars[fmt::format("code:{}", n)] = reply_code(c.backend, n);
      vars[fmt::format("feedback:{}", n)] =
          scripted_verdict(c.verdicts[static_cast<size_t>(n - 1)], n).feedback;
    }
    for (const auto& [k, v] : vars)
      for (size_t p; (p = t.find("{" + k + "}")) != std::string::npos;) t.replace(p, k.size() + 2, v);
    return t;
  };

  for (const Check& ch : c.checks) {
    SCOPED_TRACE(fmt::format("{}.case line {}: attempt {} {}", c.name, ch.line, ch.attempt, ch.what));
    ASSERT_GE(ch.attempt, 1);
    ASSERT_LE(ch.attempt, budget);
    const Attempt& a = attempts[static_cast<size_t>(ch.attempt - 1)];
    const auto& msgs = bodies[static_cast<size_t>(ch.attempt - 1)]["messages"];
    ASSERT_EQ(msgs.size(), 2u);
    const std::string sent = msgs[1]["content"].get<std::string>();
    EXPECT_EQ(sent, a.prompt) << "the logged prompt is the text sent";
    expect_template_sections(sent, opt.prompt_dir / (a.stage == Stage::Refine ? "refine.md" : "draft.md"));
    if (ch.what == "must" || ch.what == "lacks") {
      std::string want = expand(ch.text);
      bool found = sent.find(want) != std::string::npos;
      EXPECT_EQ(found, ch.what == "must") << "text:\n" << want << "\n--- prompt sent:\n" << sent;
    } else if (ch.what == "memory") {
      EXPECT_FALSE(a.context_ids.empty()) << sent;
      for (int64_t id : a.context_ids) {
        EXPECT_NE(sent.find(fmt::format("[memory #{}]", id)), std::string::npos) << id;
        EXPECT_EQ(agent.memory().get(id).backend, c.backend) << id;
      }
    } else {
      EXPECT_TRUE(a.context_ids.empty());
    }
  }
  // Nothing of another backend's guide reaches this one's prompt.
  for (const auto& other : backend_names()) {
    if (other == c.backend) continue;
    std::string g = parse_knowledge(read_file(data_root() / "knowledge" / other / "guide.md"),
                                    other, "guide.md")
                        .body;
    std::string first_line = g.substr(0, g.find('\n'));
    EXPECT_EQ(bodies[0]["messages"][1]["content"].get<std::string>().find(first_line),
              std::string::npos)
        << other << "'s guide in a " << c.backend << " prompt";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PromptGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(NestHeadings, HeadingsGoTwoLevelsDownOutsideFences) {
  EXPECT_EQ(nest_headings("# A\ntext #1\n## B\n```python\n# comment\n```\n#include <x>\n#### C"),
            "### A\ntext #1\n#### B\n```python\n# comment\n```\n#include <x>\n###### C");
  EXPECT_EQ(nest_headings(""), "");
}

// A memory without the backend's guide (auto-seeding off, nothing imported) stops the run
// before any call: a model must never be shown an empty "## Backend guide".
TEST(PromptGoldenGuide, RunWithoutTheBackendsGuideStopsBeforeAnyCall) {
  fs::path root = fs::temp_directory_path() / ("evk-golden-noguide-" + std::to_string(::getpid()));
  fs::remove_all(root);
  {
    Workspace ws(root);
    fake::FakeOpenAI server;
    Config cfg;
    cfg.set("llm.base_url", server.base_url(), "test");
    cfg.set("memory.auto_seed", "false", "test");
    Suite suite = load_suite(ws, (data_root() / "tests/data/agent_suite").string(), 0);
    AgentOptions opt;
    opt.method = method_by_name("evokernel");
    opt.budget = 1;
    opt.prompt_dir = data_root() / "prompts";
    opt.verify = verify_options(cfg);
    opt.oracle = oracle_options(cfg);
    opt.memory = memory_params(cfg);
    auto llm = make_provider("openai:fake", cfg);
    auto backend = make_backend("opencl");
    ScriptedExecutor ex({"ok:1.0"});
    Workspace run_ws(root / "runs" / "1");
    Agent agent(ws, run_ws, *llm, ex, *backend, opt);
    try {
      agent.run({&find_task(suite, "relu_small")});
      FAIL() << "the run started without a guide";
    } catch (const UsageError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("no guide for the opencl backend"), std::string::npos) << m;
      EXPECT_NE(m.find("knowledge/opencl/guide.md"), std::string::npos) << m;
    }
    EXPECT_EQ(server.requests(), 0);
  }
  fs::remove_all(root);
}

// The real verifier, given an agent for opencl or cuda, verifies for that backend: a plain
// cpu kernel (no R"evk_cl( program) is judged by the opencl rules; a cuda run compiles with
// nvcc and stops at no_device on a machine without a GPU.
TEST(PromptGoldenVerifier, RealVerifierTargetsTheRunsBackend) {
  fs::path root = fs::temp_directory_path() / ("evk-golden-verify-" + std::to_string(::getpid()));
  fs::remove_all(root);
  {
    Workspace ws(root);
    fake::FakeOpenAI server;
    fake::Behavior b;
    b.text = "```cpp\n#include \"evokernel/kernel_abi.h\"\n"
             "extern \"C\" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {\n"
             "  const float* x = static_cast<const float*>(in[0].data);\n"
             "  float* y = static_cast<float*>(out[0].data);\n"
             "  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;\n"
             "  return 0;\n}\n```\n";
    server.set_default(b);
    Config cfg;
    cfg.set("llm.base_url", server.base_url(), "test");
    Suite suite = load_suite(ws, (data_root() / "tests/data/agent_suite").string(), 0);
    AgentOptions opt;
    opt.method = method_by_name("passk");
    opt.budget = 1;
    opt.infra_retries = 0;
    opt.prompt_dir = data_root() / "prompts";
    opt.verify = verify_options(cfg);
    opt.verify.seeds = 1;
    opt.verify.backend = "cpu";  // what the options say is overridden by the Backend
    opt.oracle = oracle_options(cfg);
    opt.oracle.timing_runs = 3;
    opt.memory = memory_params(cfg);
    auto llm = make_provider("openai:fake", cfg);
    Verifier verifier(ws, opt.oracle);
    std::map<std::string, std::string> category;
    for (const std::string name : {"opencl", "cuda"}) {
      auto backend = make_backend(name);
      Workspace run_ws(root / "runs" / name);
      Agent agent(ws, run_ws, *llm, verifier, *backend, opt);
      agent.run({&find_task(suite, "relu_small")});
      auto a = agent.log().all().at(0);
      category[name] = category_name(a.verdict.category);
      if (name == "opencl") {
        EXPECT_NE(a.verdict.feedback.find("evk_cl"), std::string::npos) << a.verdict.feedback;
      }
    }
    EXPECT_NE(category["opencl"], "ok");  // a cpu verifier would have passed it
    if (!make_backend("cuda")->device_unavailable())
      GTEST_SKIP() << "a GPU is here: the cuda half needs a machine without one";
    EXPECT_TRUE(category["cuda"] == "no_device" || category["cuda"] == "compile" ||
                category["cuda"] == "hack_static")
        << category["cuda"];
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace evk
