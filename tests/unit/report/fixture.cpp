#include "fixture.h"

#include "tasks/baseline.h"

namespace evk::testing {

namespace {

struct Writer {
  AttemptLog& log;
  Memory& mem;

  // What the agent does per attempt: Q update, provenance, then the attempt row.
  void commit(Attempt a, const std::vector<int64_t>& context, double reward) {
    a.reward = a.reward_raw = reward;
    a.context_ids = context;
    a.prompt = "prompt of " + a.task;
    a.reply = "```cpp\n" + a.code + "```";
    a.prompt_tokens = 1000;
    a.completion_tokens = 250;
    a.cost_usd = 0;
    Stage st = a.stage;
    const std::string key = a.task + "#" + std::to_string(a.idx);
    if (!context.empty()) mem.update(context, st, reward, key);
    log.insert(a);
    mem.record_provenance(key, context, st, reward);
  }
};

Attempt attempt(const std::string& task, int idx, const std::string& stage,
                const std::string& code, const Verdict& v) {
  Attempt a;
  a.task = task;
  a.idx = idx;
  a.stage = stage_from(stage);
  a.code = code;
  a.verdict = v;
  return a;
}

}  // namespace

BuiltRun build_run(Workspace& ws, bool simulated, uint64_t seed) {
  RunStore store(ws);
  RunInfo info;
  info.method = "evokernel";
  info.model = simulated ? "sim" : "openai:gpt-test";
  info.suite = "builtin:level1";
  info.backend = "cpu";
  info.tasks = {"relu", "matmul_square", "softmax_big"};
  info.budget = 5;
  info.seed = seed;
  info.simulated = simulated;
  EagerBaseline eager;  // as a run records it (tasks/baseline.h)
  eager.python = "/usr/bin/python3";
  eager.torch_version = "1.13.0a0";
  eager.blas_library = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3";
  eager.blas_name = "OpenBLAS 0.3.21 (Zen kernels)";
  eager.cpu_capability = "AVX2";
  eager.blas_threads = 1;
  eager.gemm_n = 512;
  eager.gemm_gflops = 80;
  info.options = {
      {"config", {{"memory.alpha", "0.5"}}},
      {"freeze_memory", false},
      {"baseline", baseline_record(eager, baseline_health(eager, 100), 100, false, false)}};
  BuiltRun b;
  b.id = store.create(info);

  Workspace run_ws(store.run_dir(b.id));
  AttemptLog log(run_ws);
  MemoryParams p;
  p.alpha = 0.5;
  p.auto_seed = false;
  Memory mem(run_ws, p);
  auto item = [&](ItemKind k, const std::string& title, const std::string& task) {
    Item it;
    it.kind = k;
    it.title = title;
    it.body = "body of " + title;
    it.origin_task = task;
    return mem.add(it);
  };
  b.item_guard = item(ItemKind::Experience, "Guard the tail loop <n % 8>", "gelu");
  b.item_simd = item(ItemKind::BestPractice, "Vectorise the inner loop with omp simd", "relu");
  b.item_trace = item(ItemKind::Trace, "relu attempt 1: compile error", "relu");
  mem.update({b.item_guard}, Stage::Draft, 1.0);  // from an earlier run (imported)
  b.q_guard_before = mem.q(b.item_guard, Stage::Draft);

  log.put_task({"relu", 1, 4.0, 1 << 24, 2 << 25, false, ""});
  log.put_task({"matmul_square", 1, 5.0, 2LL << 30, 3 << 22, true, ""});
  log.put_task({"softmax_big", 2, 3.0, 1 << 26, 2 << 25, false, ""});

  Writer w{log, mem};
  const std::string good = "// relu v1\nint evk_forward() { return 0; }\n";
  w.commit(attempt("relu", 1, "draft", kHostileCode,
                   failed(Category::Compile, false, "error: 'x' was not declared <here> & there")),
           {b.item_guard, b.item_trace}, -1);
  w.commit(attempt("relu", 2, "draft", good, ok(2.0, 4.0, 0.1)), {b.item_guard}, 1);
  w.commit(attempt("relu", 3, "refine", "// relu v2 omp\n", ok(1.0, 4.0, 0.2)),
           {b.item_simd}, 0.9);
  w.commit(attempt("relu", 4, "refine", "// relu v3 broken\n",
                   failed(Category::Mismatch, true, "max abs err 0.5 at index 3")),
           {b.item_simd, b.item_trace}, -1);
  w.commit(attempt("relu", 5, "refine", "// relu v4 simd best\n", ok(0.5, 4.0, 0.4)),
           {b.item_simd}, 1.5);

  w.commit(attempt("matmul_square", 1, "draft", "asm(\"nop\");\n",
                   failed(Category::HackStatic, false, "inline asm is forbidden")),
           {b.item_trace}, -1);
  w.commit(attempt("matmul_square", 2, "draft", "while(1);\n",
                   failed(Category::Timeout, true, "timed out after 10 s")),
           {b.item_guard, b.item_trace}, -1);
  w.commit(attempt("matmul_square", 3, "draft", "// matmul v1\n", ok(10.0, 5.0, 0.05)),
           {b.item_guard}, 1);
  w.commit(attempt("matmul_square", 4, "refine", "// matmul v2 blocked\n", ok(8.0, 5.0, 0.06)),
           {b.item_simd}, 0.3);

  Attempt none =
      attempt("softmax_big", 1, "draft", "", failed(Category::NoCode, false, "no code block"));
  w.commit(none, {}, -1);
  w.commit(attempt("softmax_big", 2, "draft", "// softmax v1\n",
                   failed(Category::Compile, false, "error: expected ';'")),
           {b.item_trace}, -1);
  w.commit(attempt("softmax_big", 3, "draft", "// softmax v2\n",
                   failed(Category::Mismatch, true, "12 of 4096 mismatched")),
           {b.item_guard}, -1);
  w.commit(attempt("softmax_big", 4, "draft", "// softmax v3\n",
                   failed(Category::RuntimeCrash, true, "killed by SIGSEGV")),
           {b.item_guard, b.item_trace}, -1);
  store.set_status(b.id, RunStatus::Done);
  return b;
}

}  // namespace evk::testing
