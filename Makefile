# utrace: ftrace for user space.  `make demo`, `make check`.
#
#   make                build the CLI and the runtime into $(BUILD) (default build/)
#   make demo           install missing Debian packages, build, trace examples/demo
#   make check          install, build with gcc and clang, run the suite, then the
#                       suite again under ASan+UBSan (build-asan/), lint, and
#                       the fuzz targets for a bounded time (mk/fuzz.mk)
#   make CC=clang BUILD=build-clang     another compiler, out of tree
#   make SAN=1 BUILD=build-asan         sanitizers for the CLI and the unit tests
#   make lint           cppcheck + clang-tidy over all sources (scripts/lint.sh)
#   make clean          remove build/, build-clang/, build-asan/, build-fuzz/;
#                       with BUILD=DIR, remove DIR only
#   make V=1            show the commands

CC ?= gcc
BUILD ?= build
SAN ?=
V ?=
ARCH := x86_64

Q := $(if $(V),,@)
DEPS_STAMP := $(BUILD)/.deps-ok

WARN := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers
# x86-64: cmpxchg16b, for the consumed pair of a buffer header (common/tail_claim.h)
ARCH_CFLAGS := -mcx16
BASE_CFLAGS := -std=gnu11 -O2 -g -fPIC -D_GNU_SOURCE -Iinclude -I. -Iarch/$(ARCH) $(ARCH_CFLAGS) $(WARN)
comma := ,
SAN_FLAGS := $(if $(SAN),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)

# Tools (CLI, unit tests): may be sanitized.
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
TOOL_CFLAGS := $(BASE_CFLAGS) $(FUSE_CFLAGS) $(SAN_FLAGS) $(CFLAGS)
TOOL_LDLIBS := $(SAN_FLAGS) -ldw -lelf -lzstd -lfuse3 -lpthread -ldl -lm -lstdc++

# The runtime injected into traced programs: never instrumented, never
# sanitized (it runs inside arbitrary programs), symbols hidden.  Files on the
# tracing path are also built with -mgeneral-regs-only so the trampolines need
# not save vector registers, and without calls to memset/memcpy.
LIB_CFLAGS := $(BASE_CFLAGS) -fvisibility=hidden -fno-stack-protector -fno-omit-frame-pointer \
	-ftls-model=initial-exec $(CFLAGS)
cc_has = $(shell $(CC) -Werror $(1) -c -x c /dev/null -o /dev/null 2>/dev/null && echo $(1))
HOT_CFLAGS := -mgeneral-regs-only -fno-builtin -fomit-frame-pointer $(call cc_has,-fno-tree-loop-distribute-patterns)
LIB_LDLIBS := -lelf -lpthread -ldl



COMMON_SRCS := $(wildcard common/*.c common/output/*.c)
# The reader library (include/utrace/read.h): reader/, the common code it
# stands on, and the tools' arch files (the cycle counter, the site encodings,
# the prologue relocator's plan).
READER_SRCS := $(wildcard reader/*.c) arch/$(ARCH)/tsc.c arch/$(ARCH)/sitekind.c \
	arch/$(ARCH)/relocate.c arch/$(ARCH)/pltreloc.c \
	arch/$(ARCH)/usdt_args.c
CLI_SRCS := $(wildcard cli/*.c cli/cmd/*.c tracefs/*.c)
LIB_SRCS := $(wildcard libutrace/*.c libutrace/tracers/*.c arch/$(ARCH)/*.c)
LIB_ASM := $(wildcard arch/$(ARCH)/*.S)
# Sources whose code runs inside the trampoline (see HOT_CFLAGS).
HOT_SRCS := $(wildcard libutrace/tracers/*.c) libutrace/writer.c libutrace/slots.c \
	libutrace/prefault.c libutrace/numname.c \
	libutrace/backpressure.c libutrace/stack.c \
	libutrace/stacks.c arch/$(ARCH)/patch.c arch/$(ARCH)/usdt_fetch.c common/evfilter.c
# Common code the runtime needs too.
LIB_COMMON_SRCS := common/symbols.c common/symsnap.c common/sitefind.c common/prologue.c \
	common/ehframe.c \
	common/glob.c common/filter.c common/evfilter.c common/evfilter_parse.c common/usdt_events.c \
	common/pltsyms.c common/usdt.c common/usdt_desc.c common/procevents.c common/procev_fields.c \
	common/evtrigger.c common/evtrigger_filter.c common/histvar.c common/histstr.c common/synth.c common/synthrec.c \
	common/histvar_run.c \
	common/cxxname.c common/clock.c common/grow.c common/populate.c \
	common/config.c common/ctl.c common/safedir.c common/proc_alive.c common/sessname.c

TOOL_OBJ := $(BUILD)/obj
LIB_OBJ := $(BUILD)/libobj

COMMON_OBJS := $(COMMON_SRCS:%.c=$(TOOL_OBJ)/%.o)
READER_OBJS := $(READER_SRCS:%.c=$(TOOL_OBJ)/%.o) $(COMMON_OBJS)
CLI_OBJS := $(CLI_SRCS:%.c=$(TOOL_OBJ)/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=$(LIB_OBJ)/%.o) $(LIB_ASM:%.S=$(LIB_OBJ)/%.o) \
	$(filter $(LIB_COMMON_SRCS:%.c=$(LIB_OBJ)/%.o),$(COMMON_SRCS:%.c=$(LIB_OBJ)/%.o))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)

# Test programs: every prog with every compiler and instrumentation style.
PROG_SRCS := $(wildcard tests/progs/*.c tests/progs/*.cpp)
PROG_NAMES := $(basename $(notdir $(PROG_SRCS)))
PROG_STYLES := gcc-pfe gcc-fentry gcc-mcount clang-pfe clang-fentry
PROG_BINS := $(foreach p,$(PROG_NAMES),$(foreach s,$(PROG_STYLES),$(BUILD)/progs/$(p).$(s)))
PROG_LIBS := $(foreach s,$(PROG_STYLES),$(BUILD)/progs/libtlib.$(s).so)

CC_gcc := gcc
CC_clang := clang
CXX_gcc := g++
CXX_clang := clang++
STYLE_pfe := -fpatchable-function-entry=5
STYLE_fentry := -pg -mfentry
STYLE_mcount := -pg -mfentry -mrecord-mcount -Wl,-z,notext
PROG_CFLAGS := -O2 -g -fno-optimize-sibling-calls -Wall -Werror \
	-Wno-unused-result -Itests/progs

# USDT argument descriptions (common/usdt_desc.h): found beside the binaries.
USDT_DESCS := $(patsubst share/usdt/%,$(BUILD)/share/utrace/usdt/%,$(wildcard share/usdt/*.usdt))

all: $(BUILD)/utrace $(BUILD)/libutrace.so $(BUILD)/libutrace-dwarf.so $(BUILD)/libutread.a \
	$(BUILD)/libutread.so $(BUILD)/examples/read_trace $(USDT_DESCS)

$(BUILD)/share/utrace/usdt/%.usdt: share/usdt/%.usdt
	@mkdir -p $(@D)
	$(Q)cp $< $@

# What each part of the tools may include, enforced: a part compiles with
# one include directory, $(INC_DIR)/<part>, holding links to exactly the
# folders it may use, so a forbidden #include fails to compile.  Front ends
# (cli, tracefs) see the public header, common/ and themselves, never each
# other nor arch/; cli/cmd/mount.c alone also sees tracefs (it starts the
# filesystem).  The runtime (libutrace/) and the unit tests keep the whole tree.
INC_DIR := $(BUILD)/inc
PART_DIRS_common := common utrace
PART_DIRS_reader := reader common utrace
PART_DIRS_arch := common utrace
PART_DIRS_cli := cli common utrace
PART_DIRS_tracefs := tracefs common utrace
PART_DIRS_mount := cli tracefs common utrace
PARTS := common reader arch cli tracefs mount
part_of = $(if $(filter cli/cmd/mount.c,$(1)),mount,$(firstword $(subst /, ,$(1))))
link_src = $(if $(filter utrace,$(1)),$(CURDIR)/include/utrace,$(CURDIR)/$(1))
PART_CFLAGS := -std=gnu11 -O2 -g -fPIC -D_GNU_SOURCE $(ARCH_CFLAGS) $(WARN) $(FUSE_CFLAGS) $(SAN_FLAGS) $(CFLAGS)

$(INC_DIR)/.stamp: Makefile
	$(Q)rm -rf $(INC_DIR)
	$(Q)$(foreach p,$(PARTS),mkdir -p $(INC_DIR)/$(p) && \
		$(foreach d,$(PART_DIRS_$(p)),ln -sfn $(call link_src,$(d)) $(INC_DIR)/$(p)/$(d) &&) ) true
	$(Q)touch $@

$(TOOL_OBJ)/%.o: %.c | $(INC_DIR)/.stamp
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(PART_CFLAGS) -I$(INC_DIR)/$(call part_of,$<) -MMD -MP -c $< -o $@

$(LIB_OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [rt] $<")
	$(Q)$(CC) $(LIB_CFLAGS) $(if $(filter $<,$(HOT_SRCS)),$(HOT_CFLAGS)) -MMD -MP -c $< -o $@

$(LIB_OBJ)/%.o: %.S
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  AS      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libutrace.so: $(LIB_OBJS)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-z,now -Wl,-z,defs -Wl,-soname,libutrace.so -o $@ $^ $(LIB_LDLIBS)

# The runtime's DWARF reader, loaded only by -O inlined (libutrace/inlined.c).
DWARF_PLUGIN_OBJS := $(LIB_OBJ)/libutrace/dwarf/plugin.o $(LIB_OBJ)/common/inlined.o \
	$(LIB_OBJ)/common/debugfile.o $(LIB_OBJ)/common/grow.o
$(BUILD)/libutrace-dwarf.so: $(DWARF_PLUGIN_OBJS)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-z,now -Wl,-soname,libutrace-dwarf.so -o $@ $^ -ldw -lelf -lpthread

$(BUILD)/libutread.a: $(READER_OBJS)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libutread.so: $(READER_OBJS)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libutread.so -o $@ $^ $(TOOL_LDLIBS)

$(BUILD)/utrace: $(CLI_OBJS) $(BUILD)/libutread.a
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -o $@ $^ $(TOOL_LDLIBS)
	@mkdir -p $(BUILD)/libexec && ln -sf ../utrace $(BUILD)/libexec/as


# The reader library's example: its public header alone (-Iinclude), linked static.
$(BUILD)/examples/read_trace: examples/read_trace.c $(BUILD)/libutread.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(PART_CFLAGS) -Iinclude -o $@ $^ $(TOOL_LDLIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libutread.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(TOOL_CFLAGS) -Itests/unit -o $@ $^ $(TOOL_LDLIBS)

# tests/progs/NAME.c -> build/progs/NAME.<cc>-<style>; progs named *_lib* link libtlib.
define prog_rule
$(BUILD)/progs/%.$(1)-$(2): tests/progs/%.c $(BUILD)/progs/libtlib.$(1)-$(2).so
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  CC      $$@")
	$$(Q)$$(CC_$(1)) $$(PROG_CFLAGS) $$(STYLE_$(2)) -o $$@ $$< -L$$(BUILD)/progs \
		-Wl,-rpath,'$$$$ORIGIN' -l:libtlib.$(1)-$(2).so -lpthread -ldl
$(BUILD)/progs/%.$(1)-$(2): tests/progs/%.cpp
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  CXX     $$@")
	$$(Q)$$(CXX_$(1)) $$(PROG_CFLAGS) $$(STYLE_$(2)) -o $$@ $$< -lpthread
$(BUILD)/progs/libtlib.$(1)-$(2).so: tests/progs/lib/tlib.c
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC_$(1)) $$(PROG_CFLAGS) $$(STYLE_$(2)) -fPIC -shared -o $$@ $$<
$(BUILD)/progs/libtplug.$(1)-$(2).so: tests/progs/lib/tplug.c
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC_$(1)) $$(PROG_CFLAGS) $$(STYLE_$(2)) -fPIC -shared -o $$@ $$<
$(BUILD)/progs/libtopen.$(1)-$(2).so: tests/progs/lib/topen.c
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC_$(1)) $$(PROG_CFLAGS) $$(STYLE_$(2)) -fPIC -shared -o $$@ $$< \
		-Wl,-rpath,'$$$$ORIGIN' -ldl
endef
$(eval $(call prog_rule,gcc,pfe))
$(eval $(call prog_rule,gcc,fentry))
$(eval $(call prog_rule,gcc,mcount))
$(eval $(call prog_rule,clang,pfe))
$(eval $(call prog_rule,clang,fentry))

PLUG_LIBS := $(foreach s,$(PROG_STYLES),$(BUILD)/progs/libtplug.$(s).so \
	$(BUILD)/progs/libtopen.$(s).so)
$(BUILD)/progs/plain: tests/progs/plain/plain.c
	@mkdir -p $(dir $@)
	$(Q)gcc -O2 -o $@ $<

# Plain -O2 builds (no sites) for patched prologues: tests/progs/prologue/*.c
# as build/progs/NAME.<cc>-<pie|nopie>[-cf] (-cf: -fcf-protection=full, so
# functions start with endbr64), and the plugin libpplug.<same>.so.
PRO_SRCS := $(wildcard tests/progs/prologue/*.c)
PRO_VARIANTS := $(foreach c,gcc clang,$(foreach p,pie nopie,$(c)-$(p) $(c)-$(p)-cf))
PRO_BINS := $(foreach n,$(basename $(notdir $(PRO_SRCS))),$(foreach v,$(PRO_VARIANTS),\
	$(BUILD)/progs/$(n).$(v))) $(foreach v,$(PRO_VARIANTS),$(BUILD)/progs/libpplug.$(v).so)
PRO_CFLAGS := -O2 -g -Wall -Werror -Wno-unused-result
PRO_pie := -fPIE -pie
PRO_nopie := -fno-pie -no-pie
pro_cf = $(if $(findstring -cf,$(1)),-fcf-protection=full,-fcf-protection=none)
pro_cc = $(CC_$(firstword $(subst -, ,$(1))))
pro_pie = $(PRO_$(word 2,$(subst -, ,$(1))))
$(BUILD)/progs/libpplug.%.so: tests/progs/prologue/lib/pplug.c
	@mkdir -p $(dir $@)
	$(Q)$(call pro_cc,$*) $(PRO_CFLAGS) $(call pro_cf,$*) -fPIC -shared -o $@ $<
define pro_rule
$(BUILD)/progs/%.$(1): tests/progs/prologue/%.c
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  CC      $$@")
	$$(Q)$$(call pro_cc,$(1)) $$(PRO_CFLAGS) $$(call pro_cf,$(1)) $$(call pro_pie,$(1)) \
		-o $$@ $$< -lpthread -ldl
endef
$(foreach v,$(PRO_VARIANTS),$(eval $(call pro_rule,$(v))))

progs: $(PROG_BINS) $(PLUG_LIBS) $(BUILD)/progs/plain $(PRO_BINS)
units: $(UNIT_BINS)

$(DEPS_STAMP):
	@mkdir -p $(BUILD)
	@./scripts/install-deps.sh
	@touch $@

deps: $(DEPS_STAMP)

# Build order matters: the dependency check runs before anything compiles.
demo: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/examples/demo
	./scripts/demo.sh $(BUILD)

$(BUILD)/examples/demo: examples/demo.c
	@mkdir -p $(dir $@)
	$(Q)gcc -O2 -g -fpatchable-function-entry=5 -fno-optimize-sibling-calls -o $@ $<

check: deps
	$(Q)$(MAKE) --no-print-directory all progs units
	$(Q)$(MAKE) --no-print-directory CC=clang BUILD=build-clang all units
	$(Q)$(MAKE) --no-print-directory SAN=1 BUILD=build-asan all units
	./tests/run --build $(BUILD) --asan-build build-asan
	scripts/lint.sh
	$(Q)$(MAKE) --no-print-directory fuzz-check

# A real C++ program (Debian's ninja-build, fetched with apt-get source and
# built with utrace's recipes for g++ and clang++): a few minutes, so not in
# check; .ci/run runs both.  Exit 77 (skipped: no source) and 78 (known bugs
# only) pass.
check-real: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)d=$$(mktemp -d) && (cd $$d && UT_BUILD=$(abspath $(BUILD)) bash $(CURDIR)/tests/real/ninja.sh); \
		rc=$$?; rm -rf $$d; [ $$rc = 0 ] || [ $$rc = 77 ] || [ $$rc = 78 ]

lint:
	scripts/lint.sh

# Plain `make clean` removes the standard build directories; with BUILD given
# (`make clean BUILD=DIR`, or in the environment) it removes that one only.
STD_BUILDS = build build-clang build-asan $(FUZZ_BUILD)
clean:
	$(if $(filter-out . .. / ./ ../,$(strip $(BUILD))),,$(error clean: refusing BUILD='$(BUILD)'))
	rm -rf $(if $(filter command line environment,$(origin BUILD)),$(BUILD),$(STD_BUILDS))

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

.PHONY: all demo check check-real deps clean format lint progs units
include mk/fuzz.mk
-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
