# board.mk - builds the demo on FreeRTOS's POSIX port (a Linux process; tasks are pthreads).
#
# Included by the top-level Makefile after freertos-port/qemu.mk, which finds the kernel
# (KERNEL_DIR) and lists its sources (KERNEL_SRC) for every port, this one included,
# and describes the demo's variants (DEMO_VARIANT_SRC_<v>, DEMO_VARIANT_CFLAGS_<v>);
# run from the repository root. Four variants, each in its own object directory:
#
#   $(BUILD)/posix/freertos-sim        the simulator
#   $(BUILD)/posix-asan/freertos-sim   the same under AddressSanitizer + UBSan
#   $(BUILD)/posix-rts/freertos-sim    with the kernel's run-time stats on (shell: kernel_stats)
#   $(BUILD)/posix-tracer/freertos-sim the demo's `tracer` variant: another trace tool
#                                      beside the library (shell: tracer)
#
# $(POSIX_SIMS) lists all four. Each links $(LIB), which this fragment does not build.
#
# Inputs (all optional but the first two, from qemu.mk):
#   KERNEL_DIR   FreeRTOS-Kernel directory of the freertos-next crate
#   KERNEL_SRC   the kernel's sources, from KERNEL_DIR
#   LIB          the library archive (default target/release/libfreertos_cpu_usage.a)
#   BUILD        output directory (default build)
#   POSIX_CC     host C compiler (default cc); CC is left alone for cross builds
#   POSIX_EXTRA_CFLAGS  added to every compile, e.g. -I/some/dir
#
# The ASan variant needs no environment: main.c builds in its sanitizer options (stop
# at the first report, abort, leak check on) and one LeakSanitizer suppression for the
# kernel port's per-thread marker; ASAN_OPTIONS etc. still override. The port's
# SIGALRM tick, SIGUSR1 and parked pthreads give ASan/UBSan no trouble (GCC 12,
# glibc 2.36, x86-64: minutes of task churn run clean).

BUILD ?= build
LIB ?= target/release/libfreertos_cpu_usage.a
POSIX_CC ?= cc
POSIX_EXTRA_CFLAGS ?=

POSIX_PORT_DIR := $(KERNEL_DIR)/portable/ThirdParty/GCC/Posix

# The kernel's own list (qemu.mk), the C library's heap, the port's files.
POSIX_KERNEL_SRCS := \
	$(addprefix $(KERNEL_DIR)/,$(KERNEL_SRC)) \
	$(KERNEL_DIR)/portable/MemMang/heap_3.c \
	$(POSIX_PORT_DIR)/port.c \
	$(POSIX_PORT_DIR)/utils/wait_for_event.c

POSIX_APP_SRCS := $(wildcard demo/*.c) $(wildcard freertos-port/posix/*.c)

POSIX_CPPFLAGS := -I include -I demo -I freertos-port/posix \
	-I $(KERNEL_DIR)/include -I $(POSIX_PORT_DIR)

# gnu11: the port's headers use POSIX and GNU pthread calls.
POSIX_CFLAGS := -std=gnu11 -g -pthread -MMD -MP

# Our own code is held to zero warnings. The kernel gets -Wall, so that a warning the
# hook macros cause inside tasks.c shows, but never fails the build: it is not ours.
POSIX_APP_WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2
POSIX_KERNEL_WARNINGS := -Wall

# What a Rust staticlib needs from the C library on Linux (see
# `cargo rustc -- --print native-static-libs`), plus the port's pthreads and timers.
POSIX_LDLIBS ?= -lpthread -lrt -ldl -lm

# main.c runs the port's thread clean-up with the scheduler suspended: without it the
# idle task can be switched out inside pthread_join() holding a glibc lock, and task
# churn deadlocks within minutes (see __wrap_vPortCancelThread in main.c).
POSIX_LDFLAGS := -Wl,--wrap=vPortCancelThread

# Per variant: optimisation, sanitizers, defines. -fno-sanitize-recover makes UBSan
# abort on the first report instead of printing and going on, so a test sees it.
POSIX_VARIANT_FLAGS_posix := -O2
POSIX_VARIANT_FLAGS_posix-asan := -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
POSIX_VARIANT_FLAGS_posix-rts := -O2 -DDEMO_RUN_TIME_STATS=1
POSIX_VARIANT_FLAGS_posix-tracer := -O2 $(DEMO_VARIANT_CFLAGS_tracer)
# Sources a variant adds to the demo's.
POSIX_VARIANT_SRCS_posix-tracer := $(DEMO_VARIANT_SRC_tracer)

POSIX_VARIANTS := posix posix-asan posix-rts posix-tracer
POSIX_SIMS := $(foreach v,$(POSIX_VARIANTS),$(BUILD)/$(v)/freertos-sim)

ifeq ($(wildcard $(KERNEL_DIR)/tasks.c),)

# Fail only when a simulator is actually asked for, so that a missing kernel does not
# break unrelated targets of the top-level Makefile.
$(POSIX_SIMS):
	@echo "board.mk: FreeRTOS kernel not found (KERNEL_DIR='$(KERNEL_DIR)')." >&2
	@echo "board.mk: run 'cargo fetch' at the repository root, or pass KERNEL_DIR=<path to FreeRTOS-Kernel>." >&2
	@exit 1

else

# $(1): variant name. Objects go to $(BUILD)/$(1)/{kernel,app}/.
define POSIX_VARIANT_RULES

POSIX_OBJS_$(1) := \
	$$(addprefix $$(BUILD)/$(1)/kernel/,$$(notdir $$(POSIX_KERNEL_SRCS:.c=.o))) \
	$$(addprefix $$(BUILD)/$(1)/app/,$$(POSIX_APP_SRCS:.c=.o) $$(POSIX_VARIANT_SRCS_$(1):.c=.o))

$$(BUILD)/$(1)/freertos-sim: $$(POSIX_OBJS_$(1)) $$(LIB)
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(POSIX_VARIANT_FLAGS_$(1)) -pthread $$(POSIX_LDFLAGS) -o $$@ $$(POSIX_OBJS_$(1)) $$(LIB) $$(POSIX_LDLIBS)

$$(BUILD)/$(1)/app/%.o: %.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(POSIX_CFLAGS) $$(POSIX_VARIANT_FLAGS_$(1)) $$(POSIX_APP_WARNINGS) $$(POSIX_CPPFLAGS) $$(POSIX_EXTRA_CFLAGS) -c $$< -o $$@

# The kernel's files sit in three directories; their names do not collide.
$$(BUILD)/$(1)/kernel/%.o: $$(KERNEL_DIR)/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(POSIX_CFLAGS) $$(POSIX_VARIANT_FLAGS_$(1)) $$(POSIX_KERNEL_WARNINGS) $$(POSIX_CPPFLAGS) $$(POSIX_EXTRA_CFLAGS) -c $$< -o $$@

$$(BUILD)/$(1)/kernel/%.o: $$(KERNEL_DIR)/portable/MemMang/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(POSIX_CFLAGS) $$(POSIX_VARIANT_FLAGS_$(1)) $$(POSIX_KERNEL_WARNINGS) $$(POSIX_CPPFLAGS) $$(POSIX_EXTRA_CFLAGS) -c $$< -o $$@

$$(BUILD)/$(1)/kernel/%.o: $$(POSIX_PORT_DIR)/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(POSIX_CFLAGS) $$(POSIX_VARIANT_FLAGS_$(1)) $$(POSIX_KERNEL_WARNINGS) $$(POSIX_CPPFLAGS) $$(POSIX_EXTRA_CFLAGS) -c $$< -o $$@

$$(BUILD)/$(1)/kernel/%.o: $$(POSIX_PORT_DIR)/utils/%.c
	@mkdir -p $$(@D)
	$$(POSIX_CC) $$(POSIX_CFLAGS) $$(POSIX_VARIANT_FLAGS_$(1)) $$(POSIX_KERNEL_WARNINGS) $$(POSIX_CPPFLAGS) $$(POSIX_EXTRA_CFLAGS) -c $$< -o $$@

-include $$(POSIX_OBJS_$(1):.o=.d)

endef

$(foreach v,$(POSIX_VARIANTS),$(eval $(call POSIX_VARIANT_RULES,$(v))))

endif
