# bond_risk build. `make` builds bin/bond_risk; `make run` runs the 440k data
# set; `make test` runs the test suite (SANITIZE=thread or SANITIZE=address
# builds and tests an instrumented copy under build/<sanitizer>/).
SHELL := /bin/bash
.DEFAULT_GOAL := all

# As many jobs as CPUs unless the command line says (make -j2, make -j1:
# GNU make lets it win); a recursive make shares its parent's jobs. Each
# line of output stays whole, but for `make web`: line sync holds a
# command's output until it ends, and web runs until Ctrl-C (its URL must
# show at once).
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(shell nproc)
endif
ifeq ($(filter web,$(MAKECMDGOALS)),)
  MAKEFLAGS += --output-sync=line
endif

# Install missing Debian packages before anything else is evaluated: what
# building and running need (scripts/install-deps.sh run), and for any goal
# but all, run, web and clean (test, fuzz, bench...) what those need too
# (install-deps.sh test).
DEPS_CHECK_RUN := pkg-config --exists sqlite3 eigen3 tbb nlohmann_json cpp-httplib && test -f /usr/share/javascript/chart.js/chart.min.js && test -f /usr/include/asio.hpp && command -v gnuplot && command -v sqlite3
DEPS_CHECK_TEST := command -v chromedriver && test -f /usr/include/gtest/gtest.h && test -f /usr/include/benchmark/benchmark.h && test -f /usr/include/ql/quantlib.hpp && command -v clang++ && command -v shellcheck
DEPS_MODE := $(if $(filter-out all run web reset-data clean print-cxxflags bin/bond_risk data/bond_risk_440k.db,$(MAKECMDGOALS)),test,run)
DEPS_CHECK := $(DEPS_CHECK_RUN)$(if $(filter test,$(DEPS_MODE)), && $(DEPS_CHECK_TEST))
ifneq ($(shell { $(DEPS_CHECK); } >/dev/null 2>&1 && echo ok),ok)
  $(info make: some dependencies are missing; running scripts/install-deps.sh $(DEPS_MODE))
  ifneq ($(shell scripts/install-deps.sh $(DEPS_MODE) >&2; echo $$?),0)
    $(error scripts/install-deps.sh could not install the dependencies (see its message above))
  endif
endif

SANITIZE ?=
# FUZZ=1 builds the libFuzzer targets of fuzz/ with clang into build/fuzz/ (see `make fuzz`).
FUZZ ?=
# OPT_LEVEL=O0 (or O1, O2, O3) builds an optimisation variant into build/O0/bin/bond_risk (the benchmark's --opt).
OPT_LEVEL ?=
# MARCH=x86-64 builds the release binary for any x86-64 CPU (default x86-64-v3: AVX2 and FMA).
MARCH ?= x86-64-v3
CXX ?= g++
# -ffp-contract=off: no multiply and add fused where the code does not say
# so, so that a loop the compiler vectorises gives the same bits as the same
# formula run one node at a time (results are bit-identical for any grain).
CXXFLAGS_BASE := -std=c++20 -Wall -Wextra -pthread -ffp-contract=off -I. -MMD -MP \
  $(patsubst -I%,-isystem %,$(shell pkg-config --cflags eigen3 sqlite3 tbb cpp-httplib))
LDLIBS := $(shell pkg-config --libs sqlite3 tbb cpp-httplib) -pthread

ifneq ($(FUZZ),)
  CXX := clang++
  BUILD := build/fuzz
  BIN := $(BUILD)/bin/bond_risk
  OPT := -O1 -g1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
else ifneq ($(OPT_LEVEL),)
  ifeq ($(filter O0 O1 O2 O3,$(OPT_LEVEL)),)
    $(error OPT_LEVEL must be O0, O1, O2 or O3, not '$(OPT_LEVEL)')
  endif
  BUILD := build/$(OPT_LEVEL)
  BIN := $(BUILD)/bin/bond_risk
  OPT := -$(OPT_LEVEL) -DNDEBUG
else ifeq ($(SANITIZE),)
  BUILD := build/release
  BIN := bin/bond_risk
  # Link-time optimisation: the flush's per-type kernels inline the pricing
  # functions of other translation units; MARCH: AVX2 and FMA, which x86-64
  # CPUs have had since 2013-2015, for Eigen's curve and ladder arrays four
  # doubles wide (both measured in docs/build.md). MARCH=x86-64: any x86-64 CPU.
  OPT := -O3 -DNDEBUG -flto=auto -march=$(MARCH)
else ifeq ($(SANITIZE),thread)
  BUILD := build/thread
  BIN := $(BUILD)/bin/bond_risk
  OPT := -O1 -g1 -fsanitize=thread
else ifeq ($(SANITIZE),address)
  BUILD := build/address
  BIN := $(BUILD)/bin/bond_risk
  OPT := -O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
else
  $(error SANITIZE must be empty, thread or address, not '$(SANITIZE)')
endif
CXXFLAGS := $(CXXFLAGS_BASE) $(OPT)
LDFLAGS := $(filter -fsanitize=% -flto=% -march=%,$(OPT))
# The objects depend on the flags they are compiled with, kept in this file
# (rewritten when they change): `make MARCH=x86-64` rebuilds what it must.
FLAGS_FILE := $(BUILD)/compile-flags
COMPILE_FLAGS := $(CXX) $(CXXFLAGS)
$(shell mkdir -p $(BUILD) && { echo '$(COMPILE_FLAGS)' | cmp -s - $(FLAGS_FILE) || echo '$(COMPILE_FLAGS)' > $(FLAGS_FILE); })
$(FLAGS_FILE):  # again after `make clean` in the same command
	@mkdir -p $(@D) && echo '$(COMPILE_FLAGS)' > $@

ENGINE_SRC := $(wildcard engine/*.cpp)
BASE_SRC := $(wildcard base/*.cpp)
APP_SRC := $(BASE_SRC) $(filter-out bond_risk/cli/main.cpp bond_risk/mpi/%,$(wildcard bond_risk/*/*.cpp bond_risk/model/*/*.cpp bond_risk/live/*/*.cpp))
TEST_SRC := $(wildcard tests/*.cpp)
SCHEMA_SRC := $(BUILD)/gen/schema_sql.cpp
PAGE_FILES := bond_risk/web/page/index.html bond_risk/web/page/desk.js bond_risk/web/page/desk.css
PAGE_SRC := $(BUILD)/gen/web_page.cpp

LIB_OBJ := $(ENGINE_SRC:%.cpp=$(BUILD)/%.o) $(APP_SRC:%.cpp=$(BUILD)/%.o) $(BUILD)/gen/schema_sql.o $(BUILD)/gen/web_page.o
MAIN_OBJ := $(BUILD)/bond_risk/cli/main.o
TEST_OBJ := $(TEST_SRC:%.cpp=$(BUILD)/%.o)
TEST_BIN := $(BUILD)/tests/bond_risk_tests

CONF := conf/bond_risk.conf
DATA_440K := data/bond_risk_440k.db

.PHONY: all run web reset-data test bench bench-kernels clean fuzz fuzz-targets
all: $(BIN)

# bin/bond_risk_mpi (`mpirun -np N bin/bond_risk_mpi scenarios ...`), built
# with OpenMPI's compiler wrapper when it is installed; everything else
# builds without it.
MPICXX := $(shell command -v mpicxx 2>/dev/null)
MPI_BIN := $(dir $(BIN))bond_risk_mpi
MPI_OBJ := $(patsubst %.cpp,$(BUILD)/%.o,$(wildcard bond_risk/mpi/*.cpp))
ifneq ($(MPICXX),)
all: $(MPI_BIN)
$(MPI_BIN): $(LIB_OBJ) $(MPI_OBJ)
	@mkdir -p $(@D)
	$(MPICXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bond_risk/mpi/%.o: bond_risk/mpi/%.cpp $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(MPICXX) $(CXXFLAGS) -DOMPI_SKIP_MPICXX -c -o $@ $<
else
  $(info make: no MPI compiler (mpicxx): $(MPI_BIN) is not built (scripts/install-deps.sh installs openmpi-bin and libopenmpi-dev))
endif

# The version (the file VERSION) and the git commit are compiled into main.o
# and bond_risk_mpi's main.o alone, which are rebuilt when either changes (this file is rewritten then).
VERSION := $(shell cat VERSION)
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
VERSION_FILE := $(BUILD)/version
$(shell mkdir -p $(BUILD) && { echo '$(VERSION) $(COMMIT)' | cmp -s - $(VERSION_FILE) || echo '$(VERSION) $(COMMIT)' > $(VERSION_FILE); })
$(MAIN_OBJ): $(VERSION_FILE)
$(MAIN_OBJ): CXXFLAGS += -DBOND_RISK_VERSION='"$(VERSION)"' -DBOND_RISK_COMMIT='"$(COMMIT)"'
$(VERSION_FILE):  # again after `make clean` in the same command
	@mkdir -p $(@D) && echo '$(VERSION) $(COMMIT)' > $@
ifneq ($(MPICXX),)
  MPI_MAIN_OBJ := $(BUILD)/bond_risk/mpi/main.o
  $(MPI_MAIN_OBJ): $(VERSION_FILE)
  $(MPI_MAIN_OBJ): CXXFLAGS += -DBOND_RISK_VERSION='"$(VERSION)"' -DBOND_RISK_COMMIT='"$(COMMIT)"'
endif

$(BIN): $(LIB_OBJ) $(MAIN_OBJ)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.cpp $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

# The schemas are compiled in from their one source each, schema/*.sql.
$(SCHEMA_SRC): schema/bond_risk.sql schema/results.sql schema/scenarios.sql
	@mkdir -p $(@D)
	{ printf '#include "bond_risk/db/schema.h"\nconst char* const bond_risk::kSchemaSql = R"SQL('; \
	  cat schema/bond_risk.sql; printf ')SQL";\nconst char* const bond_risk::kResultsSchemaSql = R"SQL('; \
	  cat schema/results.sql; printf ')SQL";\nconst char* const bond_risk::kScenarioSchemaSql = R"SQL('; \
	  cat schema/scenarios.sql; printf ')SQL";\n'; } > $@

$(BUILD)/gen/schema_sql.o: $(SCHEMA_SRC) $(FLAGS_FILE)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

# So is the desk page (bond_risk web), from bond_risk/web/page/.
$(PAGE_SRC): $(PAGE_FILES)
	@mkdir -p $(@D)
	{ printf '#include "bond_risk/web/page_files.h"\n'; \
	  for f in $(PAGE_FILES); do \
	    name=$$(basename $$f | sed 's/index.html/kIndexHtml/; s/desk.js/kDeskJs/; s/desk.css/kDeskCss/'); \
	    printf 'const char* const bond_risk::web::%s = R"PAGE(' $$name; cat $$f; printf ')PAGE";\n'; \
	  done; } > $@

$(BUILD)/gen/web_page.o: $(PAGE_SRC) $(FLAGS_FILE)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

$(TEST_BIN): $(LIB_OBJ) $(TEST_OBJ)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ -lgtest -lQuantLib $(LDLIBS)

$(DATA_440K): | $(BIN)
	$(BIN) generate --preset 440k --out $@

run: $(BIN) $(DATA_440K)
	$(BIN) run --conf $(CONF) --db $(DATA_440K) --batch

# The desk page: an engine on the 440k set and its gateway (prints the URL).
web: $(BIN) $(DATA_440K)
	scripts/run-web.sh $(BIN) $(DATA_440K)

# The demo set as generated again, after live commands changed it.
reset-data: $(BIN)
	scripts/reset-data.sh $(BIN) $(DATA_440K)

# ThreadSanitizer keeps the longest access history (history_size=7): with the
# default, the stacks of a race inside libtbb are often lost ("failed to
# restore the stack") and tests/tsan.supp, which matches on them, cannot apply.
# The suite's line is marked `+` so that its output streams as it comes (line
# sync would hold a sanitizer run's quarter of an hour until it ends); so
# `make -n test` runs it too.
test: $(TEST_BIN) $(BIN) $(if $(MPICXX),$(MPI_BIN))
	scripts/check-layers.sh
	+BOND_RISK_BIN=$(abspath $(BIN)) $(if $(MPICXX),BOND_RISK_MPI_BIN=$(abspath $(MPI_BIN))) BOND_RISK_SRC=$(CURDIR) TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp history_size=7" \
	  scripts/run-tests.sh $(TEST_BIN)

bench: $(BIN)
	bench/run_benchmark.sh --quick

# libFuzzer targets: the command parser, the loader's row parsers, the typing of
# scenario_shift rows and the desk page gateway's check of request heads. `make fuzz`
# runs each for FUZZ_SECONDS (default 30) from its seeds; crashes land in build/fuzz/.
FUZZ_SECONDS ?= 30
FUZZ_TARGETS := command_fuzz row_fuzz scenario_fuzz http_head_fuzz
fuzz:
	$(MAKE) FUZZ=1 fuzz-targets
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus/$$t && \
	  build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=build/fuzz/$$t- \
	    build/fuzz/corpus/$$t fuzz/seeds/$$t 2>&1 | grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)' ; \
	  test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

fuzz-targets: $(FUZZ_TARGETS:%=$(BUILD)/%)

$(BUILD)/%_fuzz: $(LIB_OBJ) $(BUILD)/fuzz/%_fuzz.o
	$(CXX) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

# Microbenchmarks of the flush's kernels, of a curve's marking and of a whole load (Google Benchmark), on the 440k set.
KERNELS := $(BUILD)/bench/kernels
bench-kernels: $(KERNELS) $(DATA_440K)
	$(KERNELS) $(DATA_440K) --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

$(KERNELS): $(LIB_OBJ) $(BUILD)/bench/kernels.o
	$(CXX) $(LDFLAGS) -o $@ $^ -lbenchmark $(LDLIBS)

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)

# The compiler flags of this build, for the benchmark's host table.
.PHONY: print-cxxflags
print-cxxflags:
	@echo $(COMPILE_FLAGS)
