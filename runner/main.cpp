// evk-runner: placeholder until the verifier lands.
#include <cstdio>
int main() {
  std::fprintf(stderr, "evk-runner: not built yet\n");
  return 1;
}
