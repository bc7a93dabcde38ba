# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath: `make` builds into $(OUTPUT); `make test` runs every test; `make bench`
# prints the benchmark figures; `make install PREFIX=... DESTDIR=...`; `make deb`
# builds vpath_VERSION_ARCH.deb (scripts/mkdeb.sh).
OUTPUT ?= .output
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
PREFIX ?= /usr/local
SANITIZE ?=
# The package version: defined here only, from the VERSION file (--version, make deb).
VERSION := $(shell cat VERSION)

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(wildcard vmlinux/$(ARCH)/vmlinux.h),)
$(error no vmlinux/$(ARCH)/vmlinux.h: run vmlinux/gen-vmlinux.sh on a kernel with BTF)
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN := -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes
ifeq ($(CI),true)
WARN += -Werror
endif
# The programs are optimized across files at link time: the analyzer's
# per-record path runs through small functions of other modules (hash map,
# queues, reader, pools).  -O3 and this: 13% fewer instructions on the bench
# recording (docs/bench.md, "Analyzer throughput").  Objects carry their
# ordinary code too, so that tests and tools link as fast as before.  The
# sanitizer builds stay at -O2 without it (LTO= turns it off elsewhere).
ifeq ($(SANITIZE),)
CFLAGS ?= -O3 -g
LTO ?= -flto=auto
else
CFLAGS ?= -O2 -g
endif
ifneq ($(LTO),)
CFLAGS += $(LTO) -ffat-lto-objects
endif
CFLAGS += -std=gnu11 $(WARN) -Iinclude -Icommon -Ianalyzer -Ianalyzer/out -I$(OUTPUT)
LDLIBS += -lbpf -lelf -ldw -lz -lisal -lcjson -lpthread -lm
# vpath-analyze's sqlite output (analyzer/out/), and HTTP/2 header blocks
# (HPACK, analyzer/proto/hpack.c).  libcurl (otlp --endpoint) is opened when
# used (analyzer/out/otlp_post.c): linked, it costs every run ~30 ms at start.
ANALYZE_LIBS := -lsqlite3 -lnghttp2
LDLIBS += $(ANALYZE_LIBS)
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
# ThreadSanitizer for the analyzer's threads (--threads): make OUTPUT=.output/tsan SANITIZE=thread
ifeq ($(SANITIZE),thread)
CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += -fsanitize=thread
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

COMMON_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard common/*.c))
USER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard user/*.c))
ANALYZER_MAIN := analyzer/main.c
ANALYZER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(filter-out $(ANALYZER_MAIN),$(wildcard analyzer/*.c analyzer/*/*.c)))
TESTLIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard tests/lib/*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
TOOLS := $(patsubst tests/tools/%.c,$(OUTPUT)/tests/%,$(wildcard tests/tools/*.c))
VAPP_SRCS := $(wildcard tests/vapp/*.c)

LIBCOMMON := $(OUTPUT)/libvpathcommon.a
LIBANALYZE := $(OUTPUT)/libvpathanalyze.a
LIBTEST := $(OUTPUT)/libvpathtest.a

PROGS := $(OUTPUT)/vpath-record $(OUTPUT)/vpath-analyze $(OUTPUT)/vapp

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: deps all test unit-tests tests-build bench install deb clean format demo fuzz fuzz-build

all: $(PROGS)

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c include/vpath/record.h $(wildcard bpf/*.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -Ivmlinux/$(ARCH) \
		-Wall -Wno-unused-function -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/%.o: %.c $(wildcard include/vpath/*.h common/*.h analyzer/*.h analyzer/*/*.h user/*.h tests/lib/*.h tests/vapp/*.h) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The two objects that print --version, and the one that writes it into recordings (VPR_WRITER).
VERSION_OBJS := $(OUTPUT)/user/options.o $(OUTPUT)/analyzer/cmd/cmd.o $(OUTPUT)/user/recorder.o
$(VERSION_OBJS): VERSION
$(VERSION_OBJS): CFLAGS += -DVPATH_VERSION='"$(VERSION)"'

# The report page's script and style are linked in whole (.incbin).
$(OUTPUT)/analyzer/out/report_assets.o: $(wildcard analyzer/out/report/*)
# Its symbols are defined in assembly, which link-time optimization does not see.
$(OUTPUT)/analyzer/out/report_assets.o: CFLAGS += -fno-lto

# The recorder's BPF side is reached through the skeleton.
$(OUTPUT)/user/recorder.o: $(SKELS)

# Made afresh: a moved or renamed source must not leave its old object in the archive.
$(LIBCOMMON): $(COMMON_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(LIBANALYZE): $(ANALYZER_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(LIBTEST): $(TESTLIB_OBJS) | $(OUTPUT)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/vpath-record: $(USER_OBJS) $(LIBCOMMON)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $(LTO) $^ $(LDLIBS) -o $@

$(OUTPUT)/vpath-analyze: $(OUTPUT)/analyzer/main.o $(LIBANALYZE) $(LIBCOMMON)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $(LTO) $^ $(LDLIBS) -o $@

$(OUTPUT)/vapp: $(patsubst %.c,$(OUTPUT)/%.o,$(VAPP_SRCS)) $(LIBCOMMON)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The benchmark's floor: empty programs on the recorder's socket tracepoints.
$(OUTPUT)/tests/tpfloor.bpf.o: tests/bench/tpfloor.bpf.c | $(OUTPUT)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Wall -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true
$(OUTPUT)/tests/tpfloor.skel.h: $(OUTPUT)/tests/tpfloor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@
$(OUTPUT)/tests/tools/tpfloor.o: $(OUTPUT)/tests/tpfloor.skel.h

# Unit tests of the recorder's modules link the module they test.
$(OUTPUT)/tests/test_reorder: $(OUTPUT)/user/reorder.o
$(OUTPUT)/tests/test_redact: $(OUTPUT)/user/redact.o
$(OUTPUT)/tests/test_redact_log: $(OUTPUT)/user/redact_log.o
$(OUTPUT)/tests/test_hpack: $(OUTPUT)/user/redact_h2.o
$(OUTPUT)/tests/test_watermark: $(OUTPUT)/user/watermark.o
$(OUTPUT)/tests/test_x86_ret: $(OUTPUT)/user/x86_ret.o $(OUTPUT)/user/gotls.o $(OUTPUT)/user/elfsyms.o \
	$(OUTPUT)/user/go_entry.o
$(OUTPUT)/tests/test_priv_helper: $(OUTPUT)/user/priv_helper.o $(OUTPUT)/user/privs.o

$(OUTPUT)/tests/%: $(OUTPUT)/tests/unit/%.o $(LIBTEST) $(LIBANALYZE) $(LIBCOMMON) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcmocka -o $@

$(OUTPUT)/tests/%: $(OUTPUT)/tests/tools/%.o $(LIBTEST) $(LIBANALYZE) $(LIBCOMMON) | $(OUTPUT)/tests
	$(call msg,TOOL,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# LD_PRELOAD shims of the fault tests (tests/shim/*.c): one .so each.
SHIMS := $(patsubst tests/shim/%.c,$(OUTPUT)/tests/%.so,$(wildcard tests/shim/*.c))
$(OUTPUT)/tests/%.so: tests/shim/%.c | $(OUTPUT)/tests
	$(call msg,SHIM,$@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(CFLAGS)) -fPIC -shared $< -ldl -o $@

tests-build: $(PROGS) $(UNIT_TESTS) $(TOOLS) $(SHIMS)

unit-tests: $(UNIT_TESTS)

# Unit tests run under AddressSanitizer and UBSan from a separate output dir;
# the integration tests use the normal build (test_analyze_damaged.sh also
# the sanitized vpath-analyze built here).
test: tests-build
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(OUTPUT)/asan SANITIZE=1 unit-tests \
		$(OUTPUT)/asan/vpath-analyze
	$(Q)OUTPUT=$(OUTPUT) tests/run.sh

# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang into
# $(OUTPUT)/fuzz from objects of their own (instrumented for coverage);
# `make fuzz FUZZ_SECONDS=N` runs each N seconds (tests/fuzz/run.sh).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# Without -Werror: a warning only clang gives must not stop the fuzzing of code gcc accepts.
FUZZ_CFLAGS := -O1 -g -std=gnu11 $(filter-out -Werror,$(WARN)) -Iinclude -Icommon -Ianalyzer -Ianalyzer/out \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB := $(patsubst %.c,$(OUTPUT)/fuzz/obj/%.o,$(wildcard common/*.c) \
	$(filter-out $(ANALYZER_MAIN),$(wildcard analyzer/*.c analyzer/*/*.c)))

$(OUTPUT)/fuzz/obj/%.o: %.c $(wildcard include/vpath/*.h common/*.h analyzer/*.h analyzer/*/*.h user/*.h bpf/*.h)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
# fuzz_cli runs vpath-analyze's main() as a function.
$(OUTPUT)/fuzz/obj/analyzer/main-as-function.o: analyzer/main.c $(wildcard common/*.h analyzer/*.h analyzer/*/*.h)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-missing-prototypes -Dmain=vpath_analyze_main -c $< -o $@
# The two objects that print --version, as above.
$(OUTPUT)/fuzz/obj/user/options.o $(OUTPUT)/fuzz/obj/analyzer/cmd/cmd.o: \
	FUZZ_CFLAGS += -DVPATH_VERSION='"$(VERSION)"'
$(OUTPUT)/fuzz/fuzz_cli: $(OUTPUT)/fuzz/obj/user/options.o $(OUTPUT)/fuzz/obj/analyzer/main-as-function.o
$(OUTPUT)/fuzz/fuzz_redact: $(OUTPUT)/fuzz/obj/user/redact.o
$(OUTPUT)/fuzz/fuzz_logs: $(OUTPUT)/fuzz/obj/user/redact_log.o
$(OUTPUT)/fuzz/fuzz_hpack: $(OUTPUT)/fuzz/obj/user/redact_h2.o
$(OUTPUT)/fuzz/fuzz_x86: $(OUTPUT)/fuzz/obj/user/x86_ret.o $(OUTPUT)/fuzz/obj/user/go_entry.o
$(OUTPUT)/fuzz/fuzz_analyze: $(OUTPUT)/fuzz/obj/tests/fuzz/json_arena.o
$(OUTPUT)/fuzz/fuzz_%: $(OUTPUT)/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_LDFLAGS) $^ $(LDLIBS) -o $@

fuzz-build: $(FUZZ_TARGETS)

fuzz: fuzz-build
	$(Q)OUTPUT=$(OUTPUT) tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: tests-build
	$(Q)OUTPUT=$(OUTPUT) tests/bench/run.sh

demo: all
	$(Q)OUTPUT=$(OUTPUT) tests/demo.sh

deps:
	$(Q)scripts/install-deps.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(OUTPUT)/vpath-record $(DESTDIR)$(PREFIX)/sbin/vpath-record
	install -m 0755 $(OUTPUT)/vpath-analyze $(DESTDIR)$(PREFIX)/bin/vpath-analyze
	# the docs as in the tree, so that the README's links (docs/json.md) hold
	install -d $(DESTDIR)$(PREFIX)/share/doc/vpath/docs
	install -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/vpath/
	install -m 0644 docs/*.md docs/*.png $(DESTDIR)$(PREFIX)/share/doc/vpath/docs/
	# the ClickHouse join (docs/clickhouse.md): the tool finds its SQL beside itself
	install -d $(DESTDIR)$(PREFIX)/share/vpath/clickhouse
	install -m 0644 tools/clickhouse/*.sql $(DESTDIR)$(PREFIX)/share/vpath/clickhouse/
	install -m 0755 tools/clickhouse/vpath-clickhouse $(DESTDIR)$(PREFIX)/share/vpath/clickhouse/
	ln -sf ../share/vpath/clickhouse/vpath-clickhouse $(DESTDIR)$(PREFIX)/bin/vpath-clickhouse
	if [ -d systemd ]; then \
		install -d $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)/etc/default; \
		sed 's|@SBINDIR@|$(PREFIX)/sbin|g' systemd/vpath-record.service.in \
			> $(DESTDIR)$(PREFIX)/lib/systemd/system/vpath-record.service; \
		install -m 0644 systemd/vpath-record.conf $(DESTDIR)/etc/default/vpath-record; \
	fi
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 man/vpath-analyze.1 man/vpath-clickhouse.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 man/vpath-record.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	# bash-completion loads a command's completion from the file of its name
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 completion/vpath.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/vpath-analyze
	for c in vpath-record vpath-clickhouse; do \
		ln -sf vpath-analyze $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$c; \
	done

# A Debian package from a staged `make install` (scripts/mkdeb.sh, debian/),
# built in $(OUTPUT)/deb-build with the distribution's flags.
deb:
	$(Q)OUTPUT=$(OUTPUT) VERSION=$(VERSION) scripts/mkdeb.sh

# The C files .clang-format holds to (tests/integration/test_format.sh checks them).
FORMATTED = $(wildcard bpf/*.c bpf/*.h user/*.c user/*.h common/*.c common/*.h \
	analyzer/*.c analyzer/*.h analyzer/*/*.[ch] include/vpath/*.h tests/unit/*.c tests/lib/*.[ch] tests/vapp/*.[ch])
format:
	clang-format -i $(FORMATTED)
format-files:
	@echo $(FORMATTED)

clean:
	rm -rf $(OUTPUT)
