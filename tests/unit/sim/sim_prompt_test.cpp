// The sim reads prompts in the line formats of prompts/README.md: these pin the parsing.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/sim_internal.h"

namespace evk::sim {
namespace {

TEST(SimPy, ParsesFxArgumentLiterals) {
  Py v = parse_py("(x, 2.0, [1, -1], {'dim': 1, 'keepdim': True}, None, slice(None, 2, None), 'tanh', -inf)");
  ASSERT_EQ(v.kind, Py::kTuple);
  ASSERT_EQ(v.items.size(), 8u);
  EXPECT_EQ(v.items[0].kind, Py::kName);
  EXPECT_EQ(v.items[0].s, "x");
  EXPECT_DOUBLE_EQ(v.items[1].f, 2.0);
  EXPECT_EQ(v.items[2].items[1].i, -1);
  EXPECT_EQ(v.items[3].get("dim")->i, 1);
  EXPECT_TRUE(v.items[3].get("keepdim")->b);
  EXPECT_EQ(v.items[4].kind, Py::kNone);
  EXPECT_EQ(v.items[5].kind, Py::kCall);
  EXPECT_EQ(v.items[5].items[1].i, 2);
  EXPECT_EQ(v.items[6].s, "tanh");
  EXPECT_TRUE(std::isinf(v.items[7].f) && v.items[7].f < 0);
}

TEST(SimPy, ParsesModuleReprs) {
  Py m = parse_py("Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=2, bias=False)");
  ASSERT_EQ(m.kind, Py::kCall);
  EXPECT_EQ(m.s, "Conv2d");
  EXPECT_EQ(m.items.size(), 2u);
  EXPECT_EQ(m.get("padding")->items[0].i, 1);
  EXPECT_EQ(m.get("groups")->i, 2);
  EXPECT_FALSE(m.get("bias")->b);
  EXPECT_THROW(parse_py("(1, 2"), std::runtime_error);
}

const char* kPrompt = R"(You are an expert kernel engineer. Write a kernel for the `cpu` backend.

## Task `t` (level 1)
```python
## a comment that looks like a header
x = 1
```

## Tensors, in ABI order
- in[0] in.0: input F32 [8, 3, 64, 64]
- in[1] param.conv.weight: param F32 [16, 3, 3, 3]
- in[2] in.2: input scalar I64 []
- out[0] out.0: output F32 [8, 16, 64, 64]

## Operators (torch.fx graph, in execution order)
- %x = placeholder x args=() kwargs={} -> [8, 3, 64, 64]
- %conv = call_module conv [Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)] args=(x,) kwargs={} -> [8, 16, 64, 64]
- %max_1 = call_function max args=(conv,) kwargs={'dim': 1} -> ?
- %output = output output args=(conv,) kwargs={} -> ?

## Retrieved memory
### [memory #3] best_practice: fused the chain
tags: cpu
Fusion of the elementwise chain saved a pass.
```cpp
// evk-sim-moves: reorder,fuse
```

### [memory #4] trace: relu attempt
// evk-pitfall: off_by_one_write

## Your earlier attempts on this task
(none yet)

## Answer
Reply.
)";

TEST(SimPrompt, ReadsTensorsOpsAndMemory) {
  PromptView v = parse_prompt(kPrompt);
  EXPECT_FALSE(v.refine);
  ASSERT_EQ(v.tensors.size(), 4u);
  EXPECT_EQ(v.tensors[1].name, "param.conv.weight");
  EXPECT_EQ(v.tensors[1].role, "param");
  EXPECT_TRUE(v.tensors[2].scalar);
  EXPECT_EQ(v.tensors[2].dtype, "I64");
  EXPECT_TRUE(v.tensors[2].shape.empty());
  EXPECT_TRUE(v.tensors[3].output);
  EXPECT_EQ(v.tensors[3].shape, (std::vector<int64_t>{8, 16, 64, 64}));
  ASSERT_EQ(v.ops.size(), 4u);
  EXPECT_EQ(v.ops[1].kind, "call_module");
  EXPECT_EQ(v.ops[1].target, "conv");
  EXPECT_EQ(v.ops[1].module.s, "Conv2d");
  EXPECT_FALSE(v.ops[2].shape_known);
  EXPECT_EQ(v.ops[2].kwargs.get("dim")->i, 1);
  EXPECT_NE(v.context.find("evk-pitfall: off_by_one_write"), std::string::npos);
  EXPECT_NE(v.best_practices.find("Fusion"), std::string::npos);
  EXPECT_EQ(v.best_practices.find("relu attempt"), std::string::npos);  // a trace, not advice
}

TEST(SimPrompt, DetectsRefineAndNotTraceable) {
  std::string p = "## Tensors, in ABI order\n- in[0] in.0: input F32 [4]\n- out[0] out.0: output F32 [4]\n"
                  "## Operators (torch.fx graph, in execution order)\n(not traceable)\n"
                  "## Start point\nattempt 2: 1.0 ms (1% of roofline; 1.00x over PyTorch eager)\n"
                  "```cpp\n// evk-sim-moves: fuse\nint x;\n```\n";
  PromptView v = parse_prompt(p);
  EXPECT_TRUE(v.refine);
  EXPECT_TRUE(v.not_traceable);
  EXPECT_FALSE(v.has_ops);
  EXPECT_EQ(v.start_code, "// evk-sim-moves: fuse\nint x;\n");
}

TEST(SimRng, IsDeterministicAndUniform) {
  Rng a(7), b(7);
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    double u = a.uniform();
    EXPECT_EQ(u, b.uniform());
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

}  // namespace
}  // namespace evk::sim
