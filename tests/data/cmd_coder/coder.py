#!/usr/bin/python3
"""A coder for the cmd: provider's tests: reads the request (JSON) on stdin, answers on stdout.

Usage: coder.py MODE [ARG]
  reply             a relu kernel in a ```cpp block, preceded by what it read
  echo              the request it read, as one JSON line (the test checks stdin)
  fail-first FILE   the first call (FILE absent) fails with exit 3, later calls reply
  fail              always exits 2 with a message on stderr
  sleep SECONDS     sleeps (past the caller's timeout), then replies
  silent            exits 0 without printing anything
"""
import json
import os
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "reply"
req = json.loads(sys.stdin.read())

KERNEL = """```cpp
#include "evokernel/kernel_abi.h"
extern "C" int evk_forward(const evk_tensor* in, int32_t, evk_tensor* out, int32_t) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(out[0].data);
  for (int64_t i = 0; i < evk_numel(&in[0]); ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
  return 0;
}
```
"""


def reply():
    users = [m for m in req["messages"] if m["role"] == "user"]
    print(f"I read {len(req['messages'])} messages for task {os.environ.get('EVK_TASK', '?')}; "
          f"the last user message began: {users[-1]['content'][:40]!r}")
    print(KERNEL)


if mode == "reply":
    reply()
elif mode == "echo":
    print(json.dumps({"request": req, "env_task": os.environ.get("EVK_TASK"),
                      "env_seed": os.environ.get("EVK_SEED")}))
elif mode == "fail-first":
    if not os.path.exists(sys.argv[2]):
        open(sys.argv[2], "w").close()
        print("transient failure: try again", file=sys.stderr)
        sys.exit(3)
    reply()
elif mode == "fail":
    print("no credits left on this account", file=sys.stderr)
    sys.exit(2)
elif mode == "sleep":
    time.sleep(float(sys.argv[2]))
    reply()
elif mode == "silent":
    pass
else:
    print("unknown mode " + mode, file=sys.stderr)
    sys.exit(64)
