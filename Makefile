# carc - Carcassonne rules engine, bots and server.
#
#   make              release build: build/release/carc, libcarc.a, libcarc.so
#   make test         installs missing packages, builds (debug checks on), runs the tests
#   make run          the web game server: prints the address to open
#   make bench        the fixed benchmark (carc bench)
#   make debug        -O0 -g build with the from-scratch check after every move
#   make SANITIZE=address,undefined test    the tests under ASan + UBSan
#   make CC=clang     any of the above with clang
#   make screenshots  docs/img/table-*.png: a fixed mid-game position at three sizes (not in make test;
#                     E2E_CARC=path/to/carc: that server, nothing built)
#   make fuzz         libFuzzer targets: record reader, HTTP API, WebSocket messages (clang)
#   make install      PREFIX=/usr/local: library, header, pkg-config file
#   make JOBS=1 ...   one job at a time (the default: one per core)
#
# Warnings are errors. The tile tables are generated at build time from
# src/core/tiledefs.c by tools/gentab.c.

# every core builds (JOBS=N, or -jN on the command line, says otherwise):
# a clean `make test` compiles four builds' worth of objects
# (once: a sub-make shares the first one's jobs)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(JOBS)
endif

CC ?= cc
MODE ?= release
SANITIZE ?=
PREFIX ?= /usr/local
BUILD_ROOT ?= build

WARN = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Werror
STD = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE

ifneq ($(SANITIZE),)
  BUILD := $(BUILD_ROOT)/san
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -DCARC_DEBUG_CHECK -DCARC_TEST_STEPS
  LDSAN := -fsanitize=$(SANITIZE)
else ifeq ($(MODE),debug)
  BUILD := $(BUILD_ROOT)/debug
  OPT := -O0 -g -DCARC_DEBUG_CHECK -DCARC_TEST_STEPS
else ifeq ($(MODE),test)
  BUILD := $(BUILD_ROOT)/test
  OPT := -O2 -g -DCARC_DEBUG_CHECK -DCARC_TEST_STEPS
else
  BUILD := $(BUILD_ROOT)/release
  OPT := -O2 -g -DNDEBUG
endif

# another compiler builds into its own folder: build/release-clang, ...
ifneq ($(notdir $(CC)),cc)
  BUILD := $(BUILD)-$(notdir $(CC))
endif

# libpq's header is in a folder of its own on Debian (libpq-dev)
PQ_INC = -I/usr/include/postgresql
CFLAGS_ALL = $(STD) $(WARN) $(OPT) -fPIC -Iinclude -Isrc/core -I$(BUILD)/gen $(PQ_INC) $(CFLAGS)
LDLIBS_ALL = -ljansson -lm -lpthread $(LDSAN) $(LDLIBS)
SERVER_LIBS = -lsqlite3 -lpq -lwebsockets -lsodium -licui18n -licuuc

# libcarc = core + ai; the carc command = cli + server, linked to libcarc
CORE_SRC = $(wildcard src/core/*.c) $(wildcard src/ai/*.c)
# the server's layers, top to bottom (src/server/README.md): each folder
# sees the headers of the others by name
SERVER_DIRS = transport api table people storage base
SERVER_INC = $(foreach d,$(SERVER_DIRS),-iquote src/server/$(d))
CLI_SRC = $(wildcard src/cli/*.c) $(foreach d,$(SERVER_DIRS),$(wildcard src/server/$(d)/*.c))
TEST_SRC = $(wildcard tests/test_*.c)

CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/evalmodel.o
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/tutorial.o
TEST_BIN = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

LIB_A = $(BUILD)/libcarc.a
LIB_SO = $(BUILD)/libcarc.so
CARC = $(BUILD)/carc
DEPS_STAMP = build/.deps-ok

.PHONY: all deps test run bench debug fuzz install clean check-tools screenshots
all: $(CARC) $(LIB_A) $(LIB_SO)

# Installs the Debian packages the build needs when they are missing.
$(DEPS_STAMP): scripts/deps.sh
	@sh scripts/deps.sh
	@mkdir -p $(dir $@) && touch $@
deps: $(DEPS_STAMP)

$(BUILD)/gen/tiletab.h: tools/gentab.c src/core/tiledefs.c src/core/tiles.h src/core/state.h include/carc.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)$(CC) $(STD) $(WARN) -O1 -Iinclude -Isrc/core -o $(BUILD)/gen/gentab tools/gentab.c src/core/tiledefs.c
	$(Q)$(BUILD)/gen/gentab > $@.tmp && mv $@.tmp $@

# The learned evaluation's weights (data/eval-linear.txt, written by
# `carc train --out`) are compiled in as the file's text, byte for byte:
# learn.c parses it when a bot asks for it, tests/test_model.c compares it
# with the file and its checksum (data/eval-linear.txt.sha256).
$(BUILD)/gen/evalmodel.c: data/eval-linear.txt
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q){ printf 'extern const char ai_eval_model_text[];\nconst char ai_eval_model_text[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  printf ';\n'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/evalmodel.o: $(BUILD)/gen/evalmodel.c
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The guided first game's deal (data/tutorial.json: a pile and a seed) is
# compiled into the server the same way (src/server/table/tutorial.h): the
# tiles are named in that data file, not in the server's or the client's code.
$(BUILD)/gen/tutorial.c: data/tutorial.json
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q){ printf 'extern const char srv_tutorial_text[];\nconst char srv_tutorial_text[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  printf ';\n'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/tutorial.o: $(BUILD)/gen/tutorial.c
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# V=1 shows the whole commands
ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @echo "  $(1) $(2)"
endif

$(CLI_OBJ): CFLAGS_ALL += $(SERVER_INC)

$(BUILD)/%.o: %.c $(BUILD)/gen/tiletab.h $(wildcard include/*.h src/*/*.h src/server/*/*.h tests/*.h)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(LIB_A): $(CORE_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(CORE_OBJ)
	$(call say,LD,$@)
	$(Q)$(CC) -shared -o $@ $^ $(LDLIBS_ALL)

$(CARC): $(CLI_OBJ) $(LIB_A)
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $(CLI_OBJ) $(LIB_A) $(SERVER_LIBS) $(LDLIBS_ALL)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/tests/support.o $(LIB_A)
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $< $(BUILD)/tests/support.o $(LIB_A) $(LDLIBS_ALL) -lcmocka

# tests/test_store_sql.c tests the stores' query interface (store_sql.h) on
# a SQLite file of its own, tests/test_store_plans.c the plans of the list
# queries (SQLite, or the PostgreSQL of CARC_PLANS_PG): they link the
# server's storage and base objects.
STORE_TEST_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/server/storage/*.c src/server/base/*.c))
STORE_TESTS = $(BUILD)/tests/test_store_sql $(BUILD)/tests/test_store_plans
$(STORE_TESTS:%=%.o): CFLAGS_ALL += $(SERVER_INC)
$(STORE_TESTS): %: %.o $(STORE_TEST_OBJ) $(LIB_A)
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $< $(STORE_TEST_OBJ) $(LIB_A) $(SERVER_LIBS) $(LDLIBS_ALL) -lcmocka

# The tests run against a build with the from-scratch check after every move.
ifeq ($(SANITIZE),)
ifneq ($(MODE),test)
test:
	@$(MAKE) --no-print-directory MODE=test test
else
test: $(TEST_BIN) $(CARC) $(LIB_SO)
	@CARC=$(CARC) CARC_LIB=$(abspath $(LIB_SO)) sh tests/run.sh $(TEST_BIN)
endif
else
test: $(TEST_BIN) $(CARC) $(LIB_SO)
	@CARC=$(CARC) CARC_QUICK=1 CARC_SANITIZE=1 sh tests/run.sh $(TEST_BIN)
endif

# the web game: prints the address to open (carc demo: a bot game in the terminal)
run: $(CARC)
	$(CARC) serve

bench: $(CARC)
	$(CARC) bench

# pictures of a fixed mid-game position at 1280x800, 1920x1080 and 390x844
# for people to look at (docs/web.md "Screenshots"), written to docs/img/;
# not part of make test, nothing compared. E2E_CARC=path: a server built
# elsewhere (nothing is built here then).
screenshots: $(if $(E2E_CARC),,$(CARC))
	E2E_SCRIPT=screenshots.mjs CARC=$(or $(E2E_CARC),$(CARC)) bash tests/e2e/run.sh

debug:
	@$(MAKE) --no-print-directory MODE=debug all

# libFuzzer targets (clang only): the record reader and replay (record),
# the HTTP API (http) and the WebSocket messages (ws) of the server. The
# server targets link the server's objects without the command and take
# over net.c's calls with --wrap (tests/fuzz/fuzz_server.c). Each target
# runs FUZZ_SECONDS (record) or FUZZ_NET_SECONDS (http, ws); a crash, leak,
# timeout or sanitizer report fails (tests/fuzz.sh). FUZZ_TARGETS picks some.
FUZZ_SECONDS ?= 60
FUZZ_NET_SECONDS ?= $(FUZZ_SECONDS)
FUZZ_TARGETS ?= record http ws
FUZZ_BUILD = $(BUILD_ROOT)/fuzz
FUZZ_SAN = $(FUZZ_BUILD)/san-clang
FUZZ_CFLAGS = $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Iinclude $(SERVER_INC)
FUZZ_SERVER_OBJ = $(patsubst %.c,$(FUZZ_SAN)/%.o,$(foreach d,$(SERVER_DIRS),$(wildcard src/server/$(d)/*.c)))
FUZZ_WRAP = $(foreach f,net_send net_send_text net_broadcast net_close_after_flush net_conn_find \
	net_http_answer,-Wl,--wrap=$(f))
fuzz: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory BUILD_ROOT=$(FUZZ_BUILD) CC=clang SANITIZE=address,undefined,fuzzer-no-link all
	clang $(FUZZ_CFLAGS) -o $(FUZZ_BUILD)/fuzz_record tests/fuzz/fuzz_record.c $(FUZZ_SAN)/libcarc.a -ljansson -lm
	for t in http ws; do \
		clang $(FUZZ_CFLAGS) -o $(FUZZ_BUILD)/fuzz_$$t tests/fuzz/fuzz_$$t.c tests/fuzz/fuzz_server.c \
			$(FUZZ_SERVER_OBJ) $(FUZZ_SAN)/gen/tutorial.o $(FUZZ_SAN)/libcarc.a $(FUZZ_WRAP) $(SERVER_LIBS) -ljansson -lm -lpthread \
			|| exit 1; \
	done
	sh tests/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SAN)/carc $(foreach t,$(FUZZ_TARGETS),$(t):$(if $(filter record,$(t)),$(FUZZ_SECONDS),$(FUZZ_NET_SECONDS)))

install: $(LIB_A) $(LIB_SO) $(CARC)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/carc.h include/carc_bot.h include/carc_jansson.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(CARC) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' carc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/carc.pc

clean:
	rm -rf build
