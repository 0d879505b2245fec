# hetrace developer entry points. Keep these target names: issues and CI rely on them.
#   make demo    install deps, build, trace the bundled example, print `hetrace info`
#   make check   install deps, build, run the whole CTest suite (what .ci/run runs)
#   make build   build everything into build/
#   make bench [BENCH=record|opencl|analysis|xpti|os|cuda|mpi]   run benchmarks (not pass/fail)
#   make format  clang-format the C sources, generated files left out

BUILD    ?= build
JOBS     ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo check bench clean format

all: build

deps:
	@bash tools/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: deps build
	@bash tools/demo.sh $(BUILD)

check: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

bench: deps build
	@bash bench/run.sh $(BUILD) $(BENCH)

format:
	@bash tools/format.sh

clean:
	rm -rf $(BUILD)
