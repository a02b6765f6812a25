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

.PHONY: setup configure build test test-fast demo clean

setup:
	@bash scripts/setup

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVK_WERROR=$(EVK_WERROR) $(LAUNCHER) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Unit and golden tests only (ctest label `fast`, tests/CMakeLists.txt): minutes, not a
# quarter of an hour. `make test` still runs every tier.
test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L fast

demo: build
	@bash scripts/demo $(BUILD)

clean:
	rm -rf $(BUILD)
