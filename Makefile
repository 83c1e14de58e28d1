# Thin wrapper over CMake + CTest. `make run` and `make test` are the two commands a newcomer needs.
BUILD      ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= $(shell nproc)
# CTest runs twice as many tests as there are cores: a live test spends half its time waiting on
# its API server (measured: 2 cores were 49 % busy at -j2), so the whole suite takes 430 s
# instead of 514 s here.
TEST_JOBS  ?= $(shell echo $$(( $(JOBS) * 2 )))
CMAKE_ARGS ?=
PREFIX     ?= /usr/local
SCHEDHOST  := $(BUILD)/bin/schedhost
# The v1.35 control plane the live tests run against (tests/controlplane/): one copy for every
# build tree, so the sanitizer trees reuse it.
CONTROLPLANE_DIR ?= $(CURDIR)/build/controlplane
# Ninja (Debian's ninja-build, which `make deps` installs) for a new build tree; a tree already
# configured keeps its generator.
generator = $(if $(wildcard $(1)/CMakeCache.txt),,$(if $(shell command -v ninja),-G Ninja))

.PHONY: all deps configure build controlplane test run run-html bench bench-live asan asan-ci tsan sanitize tsan-cycle fuzz format tidy install clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
	  -DSCHEDHOST_CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# kube-apiserver, kube-scheduler, kubectl (Kubernetes v1.35) and etcd, built from the Go module
# proxy once per pinned version; without Go it says why and the live tests look elsewhere.
controlplane:
	@tests/controlplane/build.sh $(CONTROLPLANE_DIR)

test: build controlplane
	@ctest --test-dir $(BUILD) --output-on-failure -j $(TEST_JOBS)

# configs/ uses the example plugins SamplePlugin and ExampleFilter, built into their own directory.
run: build
	$(SCHEDHOST) run --config configs/scheduler-config.yaml --cluster configs/cluster.yaml \
	  --plugin-dir $(BUILD)/lib/schedhost/examples

# The same run as one self-contained page (-o html), to open in any browser.
run-html: build
	@$(SCHEDHOST) run --config configs/scheduler-config.yaml --cluster configs/cluster.yaml \
	  --plugin-dir $(BUILD)/lib/schedhost/examples -o html > $(BUILD)/run.html
	@echo "wrote $(BUILD)/run.html: open it in a browser (xdg-open $(BUILD)/run.html); nothing is fetched"

# Benchmarks build in their own tree, RelWithDebInfo (-O2 as `make` builds, with symbols for
# perf). QUICK=1: the quick workloads (under a minute) and short micro-benchmark runs.
BENCH_BUILD ?= build-bench

bench: deps
	@cmake -S . -B $(BENCH_BUILD) $(call generator,$(BENCH_BUILD)) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCHEDHOST_BUILD_BENCH=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BENCH_BUILD) -j $(JOBS) --target schedhost-bench schedhost-microbench \
	  schedhost-extender-bench
	@$(BENCH_BUILD)/bin/schedhost-bench $(if $(filter 1,$(QUICK)),--quick)
	@$(BENCH_BUILD)/bin/schedhost-extender-bench $(if $(filter 1,$(QUICK)),--quick)
	@$(BENCH_BUILD)/bin/schedhost-microbench $(if $(filter 1,$(QUICK)),--benchmark_min_time=0.05) \
	  --benchmark_out=bench/results/micro-$$(date -u +%Y-%m-%dT%H%M%SZ).json --benchmark_out_format=json

# schedhost serve against kube-scheduler through a real API server and etcd (docs/benchmarks.md,
# "Live"): each workload REPEAT times (default 3, about 17 minutes; this machine's noise makes
# single runs mislead), the table of medians. QUICK=1: one small workload, once, about 3 minutes.
REPEAT ?= 3
bench-live: deps controlplane
	@cmake -S . -B $(BENCH_BUILD) $(call generator,$(BENCH_BUILD)) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCHEDHOST_BUILD_BENCH=ON \
	  -DSCHEDHOST_CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BENCH_BUILD) -j $(JOBS) --target schedhost-bench-live schedhost schedhost_plugins
	@$(BENCH_BUILD)/bin/schedhost-bench-live $(if $(filter 1,$(QUICK)),--quick,--repeat $(REPEAT))

# Sanitizer runs of the whole test suite, each in its own build tree.
asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan BUILD_TYPE=Debug \
	  CMAKE_ARGS="-DSCHEDHOST_SANITIZE=address,undefined -DSCHEDHOST_BUILD_BENCH=OFF"

tsan:
	@$(MAKE) --no-print-directory test BUILD=build-tsan BUILD_TYPE=Debug \
	  CMAKE_ARGS="-DSCHEDHOST_SANITIZE=thread -DSCHEDHOST_BUILD_BENCH=OFF"

# The whole set, to run before resolving a change to the framework, the loader or serve: the
# whole suite under ASan+UBSan, and the suites that exercise the parallel cycle (Filter/Score
# threads, parallel preemption dry runs, Chaos) under TSan.
TSAN_SUITES := scheduler_tests preemption_tests plugin_faults_tests inter_pod_affinity_tests \
  topology_spread_tests
sanitize: asan tsan-cycle

tsan-cycle: deps
	@cmake -S . -B build-tsan $(call generator,build-tsan) -DCMAKE_BUILD_TYPE=Debug -DSCHEDHOST_SANITIZE=thread \
	  -DSCHEDHOST_BUILD_BENCH=OFF >/dev/null
	@cmake --build build-tsan -j $(JOBS) --target schedhost schedhost_plugins $(TSAN_SUITES)
	@ctest --test-dir build-tsan --output-on-failure -j $(JOBS) \
	  -L '^($(subst $(eval) ,|,$(TSAN_SUITES)))$$'

# What CI runs after `make test`, within its 45 minutes on 2 cores: AddressSanitizer alone
# (UBSan's checks double the compile time at -O0) on every suite that needs no API server. The
# live suites are not built at all (SCHEDHOST_LIVE_TESTS=OFF), and -g1 keeps the line tables
# ASan's reports need but not the full debug info, whose size slows every link: from a clean
# clone this whole target takes about 10 minutes on 2 cores (7 to build, 2.6 to test). The
# sdk_install suite is left to `make test` and `make asan`: it installs the SDK and builds
# plugins out of tree with the system compiler, which ASan does not look at, and took 145 of
# the suite's CPU seconds here.
asan-ci:
	@$(MAKE) --no-print-directory build BUILD=build-asan-ci BUILD_TYPE=Debug \
	  CMAKE_ARGS="-DSCHEDHOST_SANITIZE=address -DSCHEDHOST_BUILD_BENCH=OFF -DSCHEDHOST_LIVE_TESTS=OFF \
	  -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1"
	@ctest --test-dir build-asan-ci --output-on-failure -j $(JOBS) -LE '^sdk_install$$'

FUZZ_BUILD   ?= build-fuzzers
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := quantity profile cluster json_pointer

# libFuzzer (clang, ASan + UBSan) on each input parser for FUZZ_SECONDS, one worker each. New
# inputs go to $(FUZZ_BUILD)/corpus/<target>, crashers to $(FUZZ_BUILD)/findings/<target>: copy a
# crasher into tests/fuzz/corpus/<target>/ once fixed, and `make test` replays it from then on.
fuzz:
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSCHEDHOST_FUZZERS=ON -DSCHEDHOST_SANITIZE=address,undefined,fuzzer-no-link >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/findings/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS)s"; \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/findings/$$t/ \
	    $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t 2>$(FUZZ_BUILD)/findings/$$t/last-run.log \
	    || { tail -n 40 $(FUZZ_BUILD)/findings/$$t/last-run.log; exit 1; }; \
	  grep -E '^stat::number_of_executed_units' $(FUZZ_BUILD)/findings/$$t/last-run.log; \
	done

format:
	@git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | xargs clang-format -i

tidy: configure
	@git ls-files 'host/*.cpp' 'plugins/*.cpp' | xargs clang-tidy -p $(BUILD) --quiet --extra-arg=-Wno-unknown-warning-option

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	@rm -rf build build-asan build-asan-ci build-tsan build-fuzzers build-bench
