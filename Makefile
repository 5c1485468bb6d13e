# Top-level build. `make` builds the binaries in src/; `make run` and
# `make test` are the two set-up commands of README.md (they install missing
# Debian packages first). Variables:
#   BUILD_RDMA=auto|yes|no  RDMA transport (auto: yes when the verbs headers exist)
#   MALLOC=jemalloc|libc    allocator (SANITIZER forces libc)
#   SANITIZER=address       ASan + UBSan build
#   SANITIZER=thread        ThreadSanitizer build (without UBSan: its runtime
#                           trips TSan in thread start-up; the address build
#                           covers UBSan)
#   OPT=-O2                 optimisation flags
#   JOBS=<nproc>            parallel compile jobs of the targets below that
#                           build first (run, test*, bench*)
SHELL := /bin/bash
CXX ?= g++
OPT ?= -O2
MALLOC ?= jemalloc
BUILD_RDMA ?= auto
SANITIZER ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

ifeq ($(BUILD_RDMA),auto)
  BUILD_RDMA := $(shell test -f /usr/include/infiniband/verbs.h -a -f /usr/include/rdma/rdma_cma.h && echo yes || echo no)
endif
ifeq ($(wildcard src/net/rdma/*.cpp),)
  BUILD_RDMA := no
endif
ifneq ($(SANITIZER),)
  MALLOC := libc
endif

# Lua 5.1 with lua-cjson and lua-bitop, from Debian (scripting: src/server/script/).
LUA_CFLAGS := $(shell pkg-config --cflags lua5.1 2>/dev/null || echo -I/usr/include/lua5.1)
LUA_LIBS := -llua5.1-cjson -llua5.1-bitop $(shell pkg-config --libs lua5.1 2>/dev/null || echo -llua5.1)

CXXFLAGS := -std=c++20 $(OPT) -g -Wall -Wextra -Werror -Wno-missing-field-initializers -Isrc -pthread
LDFLAGS := -pthread
LIBS :=
# sd_notify for `supervised systemd` (server/process/supervise.cpp).
LIBS += -lsystemd
# OpenSSL 3 for the tls connection type (src/net/tls/).
LIBS += -lssl -lcrypto
ifeq ($(BUILD_RDMA),yes)
  CXXFLAGS += -DHAVE_RDMA=1
  LIBS += -lrdmacm -libverbs
endif
ifeq ($(MALLOC),jemalloc)
  CXXFLAGS += -DUSE_JEMALLOC=1
  LIBS += -ljemalloc
endif
ifeq ($(SANITIZER),thread)
  CXXFLAGS += -fsanitize=thread -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=thread
else ifneq ($(SANITIZER),)
  CXXFLAGS += -fsanitize=$(SANITIZER),undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=$(SANITIZER),undefined
endif

OBJDIR := build/obj
# Rebuild everything when the flags change (e.g. after `make SANITIZER=address`).
FLAGS_STAMP := build/flags.stamp
FLAGS_NOW := $(CXX) $(CXXFLAGS) $(LDFLAGS) $(LIBS)
ifneq ($(shell cat $(FLAGS_STAMP) 2>/dev/null),$(FLAGS_NOW))
  $(shell mkdir -p build && echo '$(FLAGS_NOW)' > $(FLAGS_STAMP))
endif

# Sources are found by folder; files under an rdma/ folder only build with RDMA,
# but for its settings.cpp (the rdma type's settings table: a redis.conf that
# names them loads on a build without RDMA too).
find_srcs = $(shell find $(1) -name '*.cpp' ! -name '*_test.cpp' 2>/dev/null | sort)
filter_rdma = $(if $(filter yes,$(BUILD_RDMA)),$(1),$(foreach f,$(1),$(if $(and $(findstring /rdma/,$(f)),$(if $(filter %/rdma/settings.cpp,$(f)),,x)),,$(f))))

BASE_SRCS := $(call filter_rdma,$(call find_srcs,src/common src/event src/resp))
NET_SRCS := $(call filter_rdma,$(call find_srcs,src/net))
SERVER_SRCS := $(filter-out src/server/main.cpp,$(call filter_rdma,$(call find_srcs,src/server)))
CLIENT_SRCS := $(call filter_rdma,$(call find_srcs,src/client))
CLI_SRCS := $(call find_srcs,src/cli)
BENCH_SRCS := $(call find_srcs,src/bench)
PEER_SRCS := $(call find_srcs,tests/rdma/peer)
TEST_SRCS := $(call filter_rdma,$(shell find src -name '*_test.cpp' | sort))

obj = $(patsubst %.cpp,$(OBJDIR)/%.o,$(1))

BINARIES := src/redis-server src/redis-cli
ifneq ($(BENCH_SRCS),)
  BINARIES += src/redis-benchmark
endif
ifeq ($(BUILD_RDMA),yes)
ifneq ($(PEER_SRCS),)
  BINARIES += src/rdma-test-peer
endif
endif

.PHONY: all deps run test test-unit test-tcl test-tcl-threads test-compat test-rdma test-deps bench bench-rdma clean format
all: $(BINARIES)

# -rdynamic: function names in the crash report's stack trace.
src/redis-server: $(call obj,src/server/main.cpp $(SERVER_SRCS) $(NET_SRCS) $(BASE_SRCS))
	$(CXX) $(LDFLAGS) -rdynamic -o $@ $^ $(LIBS) $(LUA_LIBS) -llzf -lm

src/redis-cli: $(call obj,$(CLI_SRCS) $(CLIENT_SRCS) $(NET_SRCS) $(BASE_SRCS))
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS) -ledit -lm

src/redis-benchmark: $(call obj,$(BENCH_SRCS) $(CLIENT_SRCS) $(NET_SRCS) $(BASE_SRCS))
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS) -lm

src/rdma-test-peer: $(call obj,$(PEER_SRCS) $(filter src/net/rdma/% src/net/connection.cpp,$(NET_SRCS)) $(BASE_SRCS))
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS) -lm

build/unit-tests: $(call obj,$(TEST_SRCS) $(SERVER_SRCS) $(NET_SRCS) $(CLIENT_SRCS) $(BASE_SRCS))
	$(CXX) $(LDFLAGS) -o $@ $^ $(LIBS) $(LUA_LIBS) -llzf -lgmock -lgtest_main -lgtest -lm

# Only the scripting module includes the Lua headers.
$(OBJDIR)/src/server/script/%.o: CXXFLAGS += $(LUA_CFLAGS)

$(OBJDIR)/%.o: %.cpp $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(OBJDIR) -name '*.d' 2>/dev/null)

deps:
	@utils/install-deps.sh build

test-deps:
	@utils/install-deps.sh build test rdma-vm

run: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	./src/redis-server ./redis.conf

# Every suite; the last line sums them: "N passed, M failed[, K skipped]".
test: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) all build/unit-tests
	@utils/run-tests.sh all

test-unit: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) build/unit-tests
	@utils/run-tests.sh unit

test-tcl: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@utils/run-tests.sh tcl

test-tcl-threads: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@utils/run-tests.sh tcl-threads

test-compat: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@utils/run-tests.sh compat

test-rdma: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) all build/unit-tests
	@utils/run-tests.sh rdma

bench:
	@utils/install-deps.sh build bench
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@utils/bench.sh

bench-rdma: test-deps
	@utils/install-deps.sh bench
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@utils/rxe-vm/run-bench.sh

format:
	@find src tests -name '*.cpp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf build $(BINARIES) src/redis-benchmark src/rdma-test-peer
