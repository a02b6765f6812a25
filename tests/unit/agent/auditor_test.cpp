// The model auditor (agent/auditor.h): the text a model is sent, against golden files; the
// parsing of its fixed JSON verdict; the policy; and the calls themselves against the fake
// OpenAI server (real HTTP on loopback): one retry for an answer that is not the schema, a
// failed endpoint recorded as such, and the policy applied to each outcome.
#include "agent/auditor.h"

#include <gtest/gtest.h>

#include "core/paths.h"
#include "fake_openai.h"

namespace evk {
namespace {

AuditRequest golden_request() {
  AuditRequest r;
  r.backend = "cpu";
  r.language = "C++17 with OpenMP and x86 SIMD intrinsics";
  r.task = "relu_small";
  r.task_source =
      "import torch\n\nROWS = 256\nCOLS = 1024\n\n\nclass Model(torch.nn.Module):\n"
      "    def forward(self, x):\n        return torch.relu(x)\n\n\ndef get_inputs():\n"
      "    return [torch.randn(ROWS, COLS)]\n";
  r.fitted = "ROWS 4096 -> 256";
  r.stage = Stage::Refine;
  r.attempt = 4;
  r.code =
      "#include \"evokernel/kernel_abi.h\"\n\nextern \"C\" int evk_forward(const evk_tensor* in, "
      "int32_t, evk_tensor* out, int32_t) {\n  const float* x = static_cast<const "
      "float*>(in[0].data);\n  float* y = static_cast<float*>(out[0].data);\n  const int64_t n = "
      "evk_numel(&in[0]);\n  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? 0.0f : x[i];\n  "
      "return 0;\n}\n";
  Verdict& v = r.verdict;
  v.feasible = true;
  v.latency_ms = 0.021;
  v.latency_iqr_ms = 0.0012;
  v.timed_calls = 200;
  v.eager_ms = 0.048;
  v.gbps = 99.9;
  v.gflops = 12.5;
  v.roofline_fraction = 0.41;
  v.diagnosis.bound = Bound::Memory;
  v.diagnosis.basis = "roofline";
  v.diagnosis.facts = {"achieved 99.9 GB/s of 244 GB/s at a 2 MiB working set (L2)",
                       "hardware counters unavailable: the jail's seccomp filter has no "
                       "perf_event_open"};
  return r;
}

TEST(Auditor, TheTextAModelIsSentMatchesTheGoldenFiles) {
  const auto dir = data_root() / "tests" / "data" / "prompt_golden";
  EXPECT_EQ(audit_system_text(), read_file(dir / "audit_system.txt"));
  EXPECT_EQ(audit_request_text(golden_request()), read_file(dir / "audit.txt"));
}

TEST(Auditor, TheAnswerIsTheFixedVerdictOrNothing) {
  auto a = parse_audit_answer(
      "```json\n{\"verdict\": \"suspicious\", \"reason\": \"keeps the output of the last call "
      "keyed on the input pointer\"}\n```");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->suspicious);
  EXPECT_NE(a->reason.find("input pointer"), std::string::npos);
  auto c = parse_audit_answer("{\"verdict\": \"clean\"}");  // a clean verdict needs no reason
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->suspicious);
  EXPECT_FALSE(parse_audit_answer("The kernel looks fine to me."));
  EXPECT_FALSE(parse_audit_answer("{\"verdict\": \"probably fine\", \"reason\": \"x\"}"));
  EXPECT_FALSE(parse_audit_answer("{\"verdict\": \"suspicious\"}"));  // no reason given
  EXPECT_FALSE(parse_audit_answer("{\"verdict\": true, \"reason\": \"x\"}"));
  EXPECT_EQ(
      parse_audit_answer("{\"verdict\": \"clean\", \"reason\": \"" + std::string(1000, 'x') + "\"}")
          ->reason.size(),
      400u);
}

TEST(Auditor, ThePolicyWithholdsWhatWasNotCleared) {
  for (AuditOutcome o : {AuditOutcome::Suspicious, AuditOutcome::Unparsed, AuditOutcome::Failed}) {
    EXPECT_TRUE(audit_withholds(AuditPolicy::Withhold, o)) << audit_outcome_name(o);
    EXPECT_FALSE(audit_withholds(AuditPolicy::Warn, o)) << audit_outcome_name(o);
  }
  for (AuditPolicy p : {AuditPolicy::Warn, AuditPolicy::Withhold}) {
    EXPECT_FALSE(audit_withholds(p, AuditOutcome::Clean));
    EXPECT_FALSE(audit_withholds(p, AuditOutcome::None));
  }
  EXPECT_EQ(audit_policy_from("warn"), AuditPolicy::Warn);
  EXPECT_THROW(audit_policy_from("block"), UsageError);
}

fake::Behavior said(const std::string& text) {
  fake::Behavior b;
  b.text = text;
  return b;
}

struct Served {
  fake::FakeOpenAI server;
  Config cfg;
  std::unique_ptr<Provider> llm;
  Served() {
    cfg.set("llm.base_url", server.base_url(), "test");
    cfg.set("llm.retries", "0", "test");
    llm = make_provider("openai:fake", cfg);
  }
};

TEST(Auditor, AnAnswerNotInTheSchemaIsAskedAgainOnce) {
  Served s;
  s.server.script({said("Looks fine to me."),
                   said("{\"verdict\": \"suspicious\", \"reason\": \"returns a cached output\"}")});
  Auditor auditor(*s.llm, "openai:fake", AuditPolicy::Withhold, 512);
  Audit a = auditor.audit(golden_request(), 7);
  EXPECT_EQ(a.outcome, AuditOutcome::Suspicious);
  EXPECT_EQ(a.calls, 2);
  EXPECT_TRUE(a.withheld);
  EXPECT_EQ(a.reason, "returns a cached output");
  EXPECT_EQ(a.model, "openai:fake");
  EXPECT_GT(a.prompt_tokens, 0);
  EXPECT_EQ(s.server.requests(), 2);

  s.server.script({said("fine"), said("still fine")});
  Audit u = auditor.audit(golden_request(), 7);
  EXPECT_EQ(u.outcome, AuditOutcome::Unparsed);
  EXPECT_EQ(u.calls, 2);  // one retry at most
  EXPECT_TRUE(u.withheld);
  EXPECT_EQ(s.server.requests(), 4);

  s.server.script({said("fine"), said("still fine")});
  Auditor lenient(*s.llm, "openai:fake", AuditPolicy::Warn, 512);
  Audit w = lenient.audit(golden_request(), 7);
  EXPECT_EQ(w.outcome, AuditOutcome::Unparsed);
  EXPECT_FALSE(w.withheld);
}

TEST(Auditor, AFailedCallIsRecordedAndTreatedByThePolicy) {
  Served s;
  s.server.script({fake::parse_behavior("500")});
  Auditor auditor(*s.llm, "openai:fake", AuditPolicy::Withhold, 512);
  Audit a = auditor.audit(golden_request(), 7);
  EXPECT_EQ(a.outcome, AuditOutcome::Failed);
  EXPECT_EQ(a.calls, 0);
  EXPECT_TRUE(a.withheld);
  EXPECT_NE(a.reason.find("failed"), std::string::npos) << a.reason;
  s.server.script({said("{\"verdict\": \"clean\", \"reason\": \"an elementwise loop\"}")});
  Audit c = auditor.audit(golden_request(), 7);
  EXPECT_EQ(c.outcome, AuditOutcome::Clean);
  EXPECT_FALSE(c.withheld);
  EXPECT_EQ(audit_from_json(to_json(c)).reason, "an elementwise loop");
}

}  // namespace
}  // namespace evk
