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

.PHONY: setup configure build tool test test-fast demo install deb clean

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

clean:
	rm -rf $(BUILD)
