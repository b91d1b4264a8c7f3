# gpuwatch: the two commands a fresh Debian machine needs are `make run` and `make test`.
# Both install what is missing (scripts/deps.sh, apt-get), build with CMake, then run.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ ?=
JOBS ?= 2

.PHONY: all build asan run test test-fast bench fuzz clean deps format format-check

all: build

deps:
	@scripts/deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) -- --no-print-directory

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGW_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS) -- --no-print-directory

# Runs gpuwatch on this machine's GPUs, or on the simulated 8-GPU demo where no driver loads.
run: build
	@scripts/run.sh $(BUILD) $(ARGS)

# Every test, in a normal build and again under AddressSanitizer + UBSan; at the end, the tests that
# were skipped and why (GW_REQUIRE_ALL=1, as CI sets it: a skipped test is a failure).
test:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory build asan
	@scripts/test.sh $(JOBS) $(BUILD) $(ASAN_BUILD)

# Normal build only (quicker while developing).
test-fast:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory build
	@scripts/test.sh $(JOBS) $(BUILD)

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory build
	@scripts/bench.sh $(BUILD)

# Every libFuzzer harness of fuzz/ for FUZZ_SECONDS each (FUZZ="config rules" for some), built with
# clang, ASan and UBSan in $(FUZZ_BUILD); the normal build does not need clang (docs/reliability.md).
fuzz:
	@scripts/deps.sh fuzz
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGW_FUZZ=ON -DGW_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz_all -- --no-print-directory
	@scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ)

# The code follows .clang-format (docs/STYLE.md); CI runs format-check before the tests.
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	@scripts/deps.sh build
	@clang-format -i $(FORMAT_FILES)

format-check:
	@scripts/deps.sh build
	@clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
