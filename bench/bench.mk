# bench/bench.mk - `make bench` (writes BENCHMARKS.md and bench/figures.txt) and
# `make bench-check` (the budgets, against the committed bench/figures.txt).
#
# Included by the top Makefile after freertos-port/qemu.mk (which reads every
# freertos-port/<board>/board.mk) and freertos-port/posix/board.mk, whose variables it uses
# (KERNEL_DIR, POSIX_KERNEL_SRCS, POSIX_PORT_DIR, POSIX_CC, MPS2_CC), with the top
# Makefile's LIB, LIB_CM3, CARGO and its phony `lib` and `lib-cm3` targets. Run from
# the repository root. Everything it builds goes to $(BUILD)/bench and
# target/bench256 (the 256-ID library's header too: $(BUILD)/bench/max256).
#
#   bench        build the benchmark programs, measure, write BENCHMARKS.md and
#                bench/figures.txt (a few minutes; needs valgrind and QEMU)
#   bench-stack  the readers' use of the caller's stack alone (BENCHMARKS.md section
#                5): builds the two Cortex-M3 images, runs each once under QEMU (a
#                few seconds, no valgrind), prints the stack.* figures and their
#                budgets' verdicts, writes them to $(BUILD)/bench/stack-figures.txt;
#                changes no committed file and fails only if the measuring does
#   bench-check  check the budgets on the committed figures (no building, no timing)
#   bench-check-hot  the hot path's budgets alone (switch, interrupt, tick), and that
#                the figures were measured on the sources as they are: part of
#                `make test`, so that a slower hot path, or one changed without
#                `make bench`, fails it
#
# What is measured and how: BENCHMARKS.md (written by bench/run.sh). Needs valgrind
# besides what scripts/setup.sh installs.

BENCH_OUT := $(BUILD)/bench
BENCH_FIGURES := bench/figures.txt

# The library with 256 task IDs, host and Cortex-M3, with the header of that build
# (from its OUT_DIR: scripts/generated-header.sh builds the host library).
BENCH_TARGET256 := target/bench256
BENCH_LIB256 := $(BENCH_TARGET256)/release/libfreertos_cpu_usage.a
BENCH_LIB256_CM3 := $(BENCH_TARGET256)/thumbv7m-none-eabi/release/libfreertos_cpu_usage.a
BENCH_HDR256_DIR := $(BENCH_OUT)/max256

.PHONY: bench bench-stack bench-check bench-check-hot bench-lib256

bench-lib256:
	CPU_USAGE_MAX_TASKS=256 CARGO_BUILD="$(CARGO_ARCHIVE)" scripts/generated-header.sh $(BENCH_HDR256_DIR) \
		--release --features trace --target-dir $(BENCH_TARGET256)
	CPU_USAGE_MAX_TASKS=256 $(CARGO_ARCHIVE) --release --features trace --target thumbv7m-none-eabi \
		--target-dir $(BENCH_TARGET256)
	scripts/localize-libc.sh $(BENCH_LIB256_CM3)

# Cargo knows the archives' sources; make only asks it (and, through the empty
# recipe, looks at the files' times again afterwards).
$(BENCH_LIB256) $(BENCH_LIB256_CM3): bench-lib256
	@:

# The library for two cores (CPU_USAGE_CORES=2, 32 IDs, no event trace), Cortex-M3,
# with the header of that build: the SMP switch hook, counted as the others.
BENCH_TARGETSMP2 := target/cores2
BENCH_LIBSMP2_CM3 := $(BENCH_TARGETSMP2)/thumbv7m-none-eabi/release/libfreertos_cpu_usage.a
BENCH_HDRSMP2_DIR := $(BENCH_OUT)/smp2

.PHONY: bench-libsmp2
bench-libsmp2:
	CPU_USAGE_CORES=2 CARGO_BUILD="$(CARGO_ARCHIVE)" scripts/generated-header.sh $(BENCH_HDRSMP2_DIR) \
		--release --target thumbv7m-none-eabi --target-dir $(BENCH_TARGETSMP2)
	LOCALIZE_CC=$(MPS2_CC) scripts/localize-libc.sh $(BENCH_LIBSMP2_CM3) -mcpu=cortex-m3 -mthumb

$(BENCH_LIBSMP2_CM3): bench-libsmp2
	@:

# ---- POSIX: the context-switch scenario on the real kernel ---------------------------
#
# Four kernel builds (bench/posix/FreeRTOSConfig.h): none, kernel (its run-time
# stats), lib (our hooks, on the kernel stats' clock), libdefault (our hooks, on the
# library's default clock). The lib objects link with either archive: the hooks do
# not depend on the number of IDs.

BENCH_POSIX_CFLAGS := -std=gnu11 -O2 -g -pthread -MMD -MP
BENCH_POSIX_CPPFLAGS := -I bench/posix -I include -I $(KERNEL_DIR)/include -I $(POSIX_PORT_DIR)
BENCH_POSIX_LDLIBS := -lpthread -lrt -ldl -lm

BENCH_POSIX_BINS := $(addprefix $(BENCH_OUT)/switch-,none kernel lib32 lib256 libdefault)

ifeq ($(wildcard $(KERNEL_DIR)/tasks.c),)

$(BENCH_POSIX_BINS):
	@echo "bench: FreeRTOS kernel not found (KERNEL_DIR='$(KERNEL_DIR)'): run 'cargo fetch'." >&2
	@exit 1

else

BENCH_ACCOUNTING_none := 0
BENCH_ACCOUNTING_kernel := 1
BENCH_ACCOUNTING_lib := 2
BENCH_ACCOUNTING_libdefault := 3

# $(1): variant
define BENCH_POSIX_RULES
BENCH_POSIX_OBJS_$(1) := $$(addprefix $$(BENCH_OUT)/posix-$(1)/,$$(notdir $$(POSIX_KERNEL_SRCS:.c=.o)) main.o)

$$(BENCH_OUT)/posix-$(1)/main.o: bench/posix/main.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(BENCH_POSIX_CFLAGS) -Wall -Wextra -Werror -DBENCH_ACCOUNTING=$$(BENCH_ACCOUNTING_$(1)) $$(BENCH_POSIX_CPPFLAGS) -c $$< -o $$@

$$(BENCH_OUT)/posix-$(1)/%.o: $$(KERNEL_DIR)/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(BENCH_POSIX_CFLAGS) -DBENCH_ACCOUNTING=$$(BENCH_ACCOUNTING_$(1)) $$(BENCH_POSIX_CPPFLAGS) -c $$< -o $$@

$$(BENCH_OUT)/posix-$(1)/%.o: $$(KERNEL_DIR)/portable/MemMang/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(BENCH_POSIX_CFLAGS) -DBENCH_ACCOUNTING=$$(BENCH_ACCOUNTING_$(1)) $$(BENCH_POSIX_CPPFLAGS) -c $$< -o $$@

$$(BENCH_OUT)/posix-$(1)/%.o: $$(POSIX_PORT_DIR)/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(BENCH_POSIX_CFLAGS) -DBENCH_ACCOUNTING=$$(BENCH_ACCOUNTING_$(1)) $$(BENCH_POSIX_CPPFLAGS) -c $$< -o $$@

$$(BENCH_OUT)/posix-$(1)/%.o: $$(POSIX_PORT_DIR)/utils/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(BENCH_POSIX_CFLAGS) -DBENCH_ACCOUNTING=$$(BENCH_ACCOUNTING_$(1)) $$(BENCH_POSIX_CPPFLAGS) -c $$< -o $$@

-include $$(BENCH_POSIX_OBJS_$(1):.o=.d)
endef

$(foreach v,none kernel lib libdefault,$(eval $(call BENCH_POSIX_RULES,$(v))))

$(BENCH_OUT)/switch-none: $(BENCH_POSIX_OBJS_none)
	$(POSIX_CC) -pthread -o $@ $^ $(BENCH_POSIX_LDLIBS)

$(BENCH_OUT)/switch-kernel: $(BENCH_POSIX_OBJS_kernel)
	$(POSIX_CC) -pthread -o $@ $^ $(BENCH_POSIX_LDLIBS)

$(BENCH_OUT)/switch-lib32: $(BENCH_POSIX_OBJS_lib) $(LIB)
	$(POSIX_CC) -pthread -o $@ $(BENCH_POSIX_OBJS_lib) $(LIB) $(BENCH_POSIX_LDLIBS)

$(BENCH_OUT)/switch-lib256: $(BENCH_POSIX_OBJS_lib) $(BENCH_LIB256)
	$(POSIX_CC) -pthread -o $@ $(BENCH_POSIX_OBJS_lib) $(BENCH_LIB256) $(BENCH_POSIX_LDLIBS)

$(BENCH_OUT)/switch-libdefault: $(BENCH_POSIX_OBJS_libdefault) $(LIB)
	$(POSIX_CC) -pthread -o $@ $(BENCH_POSIX_OBJS_libdefault) $(LIB) $(BENCH_POSIX_LDLIBS)

endif

# ---- Cortex-M3: the hooks called directly, counted under QEMU ------------------------

BENCH_CM3_CFLAGS := -mcpu=cortex-m3 -mthumb -O2 -g -std=gnu11 -ffunction-sections -fdata-sections \
	-Wall -Wextra -Werror -MMD -MP
BENCH_CM3_LDFLAGS := -mcpu=cortex-m3 -mthumb -T bench/cm3/bench.ld -nostartfiles -Wl,--gc-sections \
	--specs=nano.specs -Wl,--no-warn-execstack

# The harness's objects are named harness*.o: bench.ld keeps them out of the measured
# range by that name.
BENCH_CM3_SRCS := harness scenarios stack
BENCH_CM3_OBJS_32 := $(patsubst %,$(BENCH_OUT)/cm3-32/harness-%.o,$(BENCH_CM3_SRCS))
BENCH_CM3_OBJS_256 := $(patsubst %,$(BENCH_OUT)/cm3-256/harness-%.o,$(BENCH_CM3_SRCS))
BENCH_CM3_OBJS_SMP2 := $(patsubst %,$(BENCH_OUT)/cm3-smp2/harness-%.o,$(BENCH_CM3_SRCS))

$(BENCH_OUT)/cm3-32/harness-%.o: bench/cm3/%.c
	@mkdir -p $(@D)
	$(MPS2_CC) $(BENCH_CM3_CFLAGS) -I include -c $< -o $@

$(BENCH_OUT)/cm3-256/harness-%.o: bench/cm3/%.c | bench-lib256
	@mkdir -p $(@D)
	$(MPS2_CC) $(BENCH_CM3_CFLAGS) -I $(BENCH_HDR256_DIR) -I include -c $< -o $@

$(BENCH_OUT)/cm3-smp2/harness-%.o: bench/cm3/%.c | bench-libsmp2
	@mkdir -p $(@D)
	$(MPS2_CC) $(BENCH_CM3_CFLAGS) -DBENCH_SMP_CORES=2 -I $(BENCH_HDRSMP2_DIR) -I include -c $< -o $@

$(BENCH_OUT)/cm3-32/bench.elf: $(BENCH_CM3_OBJS_32) $(LIB_CM3) bench/cm3/bench.ld
	$(MPS2_CC) $(BENCH_CM3_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(BENCH_CM3_OBJS_32) $(LIB_CM3)

$(BENCH_OUT)/cm3-256/bench.elf: $(BENCH_CM3_OBJS_256) $(BENCH_LIB256_CM3) bench/cm3/bench.ld
	$(MPS2_CC) $(BENCH_CM3_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(BENCH_CM3_OBJS_256) $(BENCH_LIB256_CM3)

$(BENCH_OUT)/cm3-smp2/bench.elf: $(BENCH_CM3_OBJS_SMP2) $(BENCH_LIBSMP2_CM3) bench/cm3/bench.ld
	$(MPS2_CC) $(BENCH_CM3_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(BENCH_CM3_OBJS_SMP2) $(BENCH_LIBSMP2_CM3)

-include $(BENCH_CM3_OBJS_32:.o=.d) $(BENCH_CM3_OBJS_256:.o=.d) $(BENCH_CM3_OBJS_SMP2:.o=.d)

BENCH_CM3_ELFS := $(BENCH_OUT)/cm3-32/bench.elf $(BENCH_OUT)/cm3-256/bench.elf $(BENCH_OUT)/cm3-smp2/bench.elf

# ---- Measure and write ---------------------------------------------------------------

bench: $(BENCH_POSIX_BINS) $(BENCH_CM3_ELFS)
	BENCH_OUT=$(BENCH_OUT) BENCH_CC=$(POSIX_CC) bench/run.sh BENCHMARKS.md $(BENCH_FIGURES)

bench-stack: $(BENCH_CM3_ELFS)
	BENCH_OUT=$(BENCH_OUT) bench/run.sh --stack

bench-check:
	bench/check.sh $(BENCH_FIGURES)

bench-check-hot:
	bench/check.sh --hot $(BENCH_FIGURES)
