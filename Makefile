# The two commands of the README. Each does its own set-up on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
# Warnings are fatal only where asked: .ci/run sets EVK_WERROR=ON.
EVK_WERROR ?= OFF
# ccache when the machine has it: paths relative to the checkout, so clones share the cache.
CCACHE := $(shell command -v ccache 2>/dev/null)
LAUNCHER := $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

PREFIX ?= /usr/local

.PHONY: setup configure build tool test test-fast demo install deb clean test-asan test-tsan fuzz-build \
        fuzz

setup:
	@bash scripts/setup

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVK_WERROR=$(EVK_WERROR) $(LAUNCHER) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Only what running evokernel needs (the CLI and the runners): no tests, no benchmarks.
tool: configure
	@cmake --build $(BUILD) -j $(JOBS) --target evk_tool

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Unit and golden tests only (ctest label `fast`, tests/CMakeLists.txt): minutes, not a
# quarter of an hour. `make test` still runs every tier.
test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L fast

demo: tool
	@bash scripts/demo $(BUILD)

# Installs bin/, libexec/evokernel/ and share/evokernel/ under PREFIX (the tree can be moved).
install: tool
	@cmake --install $(BUILD) --prefix $(PREFIX)

# build/package/evokernel_<version>_amd64.deb: `apt install ./evokernel_*.deb` is the set-up.
deb: tool
	@cd $(BUILD) && cpack -G DEB -B package >/dev/null && ls $(CURDIR)/$(BUILD)/package/*.deb

# The fast tier under AddressSanitizer and UndefinedBehaviorSanitizer (README, "Memory
# safety"): any report fails. Only the test binaries the tier draws from are built (a fast
# test in another binary is listed as NOT_BUILT and skipped: add its binary here).
ASAN_BUILD ?= build-asan
ASAN_TARGETS ?= test_core test_tasks test_llm test_memory test_knowledge test_report test_sim \
                test_agent test_run test_slurm test_verify
FAST_TIER ?= -L fast
SAN_ENV := ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1 \
           UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

test-asan: setup
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DEVK_WERROR=$(EVK_WERROR) -DEVK_SANITIZE=address,undefined -DEVK_BUILD_BENCH=OFF \
	  $(LAUNCHER) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target $(ASAN_TARGETS)
	@cd $(ASAN_BUILD) && $(SAN_ENV) ctest --output-on-failure --no-tests=error -j $(JOBS) $(FAST_TIER)

# The tests that run threads, under ThreadSanitizer (README, "Memory safety"): the pool
# (parallel_for) and its batches of verifications (`verify --jobs`), parallel tasks of a run,
# the LLM client's parallel callers and budget, concurrent cassette recorders. The CLI tests
# run this build's evokernel, so its threads are checked too; any report fails the run
# (halt_on_error, and a report makes the process exit non-zero).
TSAN_BUILD ?= build-tsan
TSAN_TARGETS ?= test_core test_llm test_agent
TSAN_TESTS ?= ^(Parallel|Accountant|CassetteTest|FakeServerTest|CliVerify|SkipRun)\.
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

test-tsan: setup
	@cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DEVK_WERROR=$(EVK_WERROR) -DEVK_SANITIZE=thread -DEVK_BUILD_BENCH=OFF $(LAUNCHER) >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)
	@cd $(TSAN_BUILD) && $(TSAN_ENV) ctest --output-on-failure --no-tests=error -j $(JOBS) \
	  -R '$(TSAN_TESTS)'

# libFuzzer targets (README, "Memory safety"): a clang build of the parsers' libraries only.
# `make fuzz` runs each target for FUZZ_SECONDS on its corpus (new inputs land in
# build-fuzz/corpus/<target>); `ctest -L fuzz` in build-fuzz runs each briefly.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= runner_protocol extract suite_manifest task_meta config cassette memory_import

fuzz-build: setup
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DEVK_FUZZ=ON $(LAUNCHER) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t && echo "fuzz_$$t: $(FUZZ_SECONDS) s" && \
	  $(SAN_ENV) $(FUZZ_BUILD)/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_BUILD)/fuzz_$$t- -print_final_stats=1 -max_len=16384 \
	    $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD)
