# libFuzzer targets (tests/fuzz/fuzz_*.c) for the code that parses untrusted
# input: the ring-buffer reader, the control-file parsers (set_ftrace_filter
# and friends), the configuration document handed to traced processes, the
# trace.dat reader, the DWARF scan of inlined functions (common/inlined.c),
# USDT probe notes (common/usdt.c), event-trigger lines (common/evtrigger.c),
# event filters and USDT descriptions (common/evfilter*.c, common/usdt_desc.c).  Included from
# the top Makefile (uses its ARCH, WARN and Q).
#
#   make fuzz-check       build, then run each target FUZZ_SECONDS (default 20)
#                         on a scratch copy of its seed corpus; fails on any
#                         crash, sanitizer report, leak or hang
#   make fuzz             longer local runs: FUZZ_RUN_SECONDS (default 600) per
#                         target, corpus kept in $(FUZZ_BUILD)/corpus/<target>
#   make fuzz FUZZ_TARGETS=filter FUZZ_ARGS='-jobs=4 -workers=4'
#   make fuzz-clean
#
# Crash inputs land in $(FUZZ_BUILD)/crash-<target>-*; reproduce one with
# `$(FUZZ_BUILD)/fuzz_<target> FILE`, then add it to tests/fuzz/corpus/<target>/.

FUZZ_CC ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 20
FUZZ_RUN_SECONDS ?= 600
FUZZ_ARGS ?=
FUZZ_TARGETS ?= ring_buffer filter config tracedat dwarf usdt evtrigger evfilter

FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -Iinclude -I. \
	-Iarch/$(ARCH) $(ARCH_CFLAGS) $(WARN) $(FUZZ_SAN)
# Per target: the project sources it links, and the longest input tried.
FUZZ_SRCS_ring_buffer := common/ring_buffer.c
FUZZ_SRCS_filter := common/filter.c common/glob.c common/cxxname.c
FUZZ_SRCS_config := common/config.c common/cxxname.c
FUZZ_SRCS_tracedat := reader/tracedat_read.c reader/tracedat_compress.c reader/tracedat_format.c \
	common/ring_headers.c common/usdt_events.c common/procevents.c common/usdt.c common/usdt_desc.c \
	arch/$(ARCH)/usdt_args.c \
	reader/stream.c reader/stream_file.c common/grow.c common/symbols.c \
	common/glob.c
FUZZ_SRCS_dwarf := common/inlined.c common/debugfile.c common/grow.c
FUZZ_SRCS_usdt := common/usdt.c common/usdt_desc.c arch/$(ARCH)/usdt_args.c
FUZZ_SRCS_evfilter := common/evfilter.c common/evfilter_parse.c common/glob.c common/usdt_desc.c
FUZZ_SRCS_evtrigger := common/evtrigger.c common/evtrigger_filter.c common/histvar.c common/histstr.c common/synth.c common/evfilter.c \
	common/evfilter_parse.c common/glob.c common/usdt_events.c common/usdt.c common/usdt_desc.c \
	arch/$(ARCH)/usdt_args.c
# Libraries a target's sources need (common/symbols.c reads ELF files).
FUZZ_LIBS_tracedat := -lelf -lzstd
FUZZ_LIBS_dwarf := -ldw -lelf
FUZZ_LIBS_usdt := -lelf
FUZZ_LIBS_evtrigger := -lelf
FUZZ_MAXLEN_ring_buffer := 12288
FUZZ_MAXLEN_filter := 4096
FUZZ_MAXLEN_config := 4096
# a trace.dat's header is two pages; room for a few pages of events after it
FUZZ_MAXLEN_tracedat := 32768
# the DWARF sections of a small program compiled with -g -O2
FUZZ_MAXLEN_dwarf := 16384
# an object file with a few probes' notes
FUZZ_MAXLEN_usdt := 8192
# one trigger line (the mount takes 511 bytes)
FUZZ_MAXLEN_evtrigger := 1024
# a filter line, then a record / a program word
FUZZ_MAXLEN_evfilter := 2048
# -timeout: one input taking longer is a hang; -rss_limit_mb: so is runaway memory.
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

FUZZ_HDRS := $(wildcard common/*.h include/utrace/*.h reader/*.h)
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_PROBE := $(FUZZ_BUILD)/.libfuzzer-ok

# A clear failure instead of a link error when clang's libFuzzer runtime is
# missing (Debian: libclang-rt-dev).
$(FUZZ_PROBE):
	@mkdir -p $(FUZZ_BUILD)
	$(Q)printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n ? 0 : 0; }\n' \
		>$(FUZZ_BUILD)/probe.c
	$(Q)if ! $(FUZZ_CC) $(FUZZ_SAN) -o $(FUZZ_BUILD)/probe $(FUZZ_BUILD)/probe.c \
		>$(FUZZ_BUILD)/probe.log 2>&1; then \
		cat $(FUZZ_BUILD)/probe.log >&2; \
		echo "fuzz: '$(FUZZ_CC) -fsanitize=fuzzer' does not work: clang's libFuzzer runtime is missing" >&2; \
		echo "fuzz: install clang and its runtime library (Debian: apt-get install clang libclang-rt-dev)," >&2; \
		echo "fuzz: or point FUZZ_CC at a clang that has it" >&2; \
		exit 1; \
	fi
	@rm -f $(FUZZ_BUILD)/probe $(FUZZ_BUILD)/probe.c $(FUZZ_BUILD)/probe.log
	@touch $@

define fuzz_rule
$(FUZZ_BUILD)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_HDRS) mk/fuzz.mk | $(FUZZ_PROBE)
	$$(if $$(Q),@echo "  FUZZCC  $$@")
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

fuzz-build: $(FUZZ_BINS)

# Each target runs on a fresh copy of the seeds (the repository's corpus is
# never written to); the log is kept in $(FUZZ_BUILD)/<target>.log.
fuzz-check: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		dir=$(FUZZ_BUILD)/check-corpus/$$t; \
		rm -rf $$dir && mkdir -p $$dir && cp tests/fuzz/corpus/$$t/* $$dir/ || exit 1; \
		echo "  FUZZ    $$t ($(FUZZ_SECONDS) s)"; \
		if ! $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
			-max_len=$(FUZZ_MAXLEN_$$t) -artifact_prefix=$(FUZZ_BUILD)/crash-$$t- \
			$(FUZZ_ARGS) $$dir >$(FUZZ_BUILD)/$$t.log 2>&1; then \
			tail -n 60 $(FUZZ_BUILD)/$$t.log >&2; \
			echo "fuzz-check: $$t FAILED (log: $(FUZZ_BUILD)/$$t.log;" \
				"input: $(FUZZ_BUILD)/crash-$$t-*)" >&2; \
			exit 1; \
		fi; \
		grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec' \
			$(FUZZ_BUILD)/$$t.log | sed 's/^/          /'; \
	done

fuzz: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		dir=$(FUZZ_BUILD)/corpus/$$t; \
		mkdir -p $$dir && cp tests/fuzz/corpus/$$t/* $$dir/ || exit 1; \
		echo "  FUZZ    $$t ($(FUZZ_RUN_SECONDS) s, corpus $$dir)"; \
		$(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_RUN_SECONDS) \
			-max_len=$(FUZZ_MAXLEN_$$t) -artifact_prefix=$(FUZZ_BUILD)/crash-$$t- \
			$(FUZZ_ARGS) $$dir || exit 1; \
	done

fuzz-clean:
	rm -rf $(FUZZ_BUILD)

.PHONY: fuzz fuzz-build fuzz-check fuzz-clean
