# port.mk - builds the demo on FreeRTOS's POSIX port (a Linux process; tasks are pthreads).
#
# Included by the top-level Makefile; run from the repository root. Three variants,
# each in its own object directory:
#
#   $(BUILD)/posix/freertos-sim        the simulator
#   $(BUILD)/posix-asan/freertos-sim   the same under AddressSanitizer + UBSan
#   $(BUILD)/posix-rts/freertos-sim    with the kernel's run-time stats on (shell: kernel_stats)
#
# $(POSIX_SIMS) lists all three. Each links $(LIB), which this fragment does not build.
#
# Inputs (all optional):
#   KERNEL_DIR   FreeRTOS-Kernel directory of the freertos-next crate. Found with
#                `cargo metadata` when not given.
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

# The kernel sources live in cargo's registry, never in this repository. The crate's
# manifest path ends in .../freertos-next-<version>/Cargo.toml; its kernel sits beside it.
ifeq ($(origin KERNEL_DIR),undefined)
KERNEL_DIR := $(shell cargo metadata --format-version 1 2>/dev/null \
	| grep -o '"manifest_path":"[^"]*/freertos-next-[^"/]*/Cargo.toml"' \
	| sed -n '1s|^"manifest_path":"\(.*\)/Cargo.toml"$$|\1/FreeRTOS-Kernel|p')
else
# Expanded once here: an includer's `KERNEL_DIR ?= $(shell cargo metadata ...)` is a
# recursive variable and would run cargo again at every use below.
KERNEL_DIR := $(KERNEL_DIR)
endif

POSIX_PORT_DIR := $(KERNEL_DIR)/portable/ThirdParty/GCC/Posix

POSIX_KERNEL_SRCS := \
	$(KERNEL_DIR)/tasks.c \
	$(KERNEL_DIR)/queue.c \
	$(KERNEL_DIR)/list.c \
	$(KERNEL_DIR)/timers.c \
	$(KERNEL_DIR)/event_groups.c \
	$(KERNEL_DIR)/stream_buffer.c \
	$(KERNEL_DIR)/portable/MemMang/heap_3.c \
	$(POSIX_PORT_DIR)/port.c \
	$(POSIX_PORT_DIR)/utils/wait_for_event.c

POSIX_APP_SRCS := $(wildcard demo/*.c) freertos-port/posix/main.c

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

POSIX_VARIANTS := posix posix-asan posix-rts
POSIX_SIMS := $(foreach v,$(POSIX_VARIANTS),$(BUILD)/$(v)/freertos-sim)

ifeq ($(wildcard $(KERNEL_DIR)/tasks.c),)

# Fail only when a simulator is actually asked for, so that a missing kernel does not
# break unrelated targets of the top-level Makefile.
$(POSIX_SIMS):
	@echo "port.mk: FreeRTOS kernel not found (KERNEL_DIR='$(KERNEL_DIR)')." >&2
	@echo "port.mk: run 'cargo fetch' at the repository root, or pass KERNEL_DIR=<path to FreeRTOS-Kernel>." >&2
	@exit 1

else

# $(1): variant name. Objects go to $(BUILD)/$(1)/{kernel,app}/.
define POSIX_VARIANT_RULES

POSIX_OBJS_$(1) := \
	$$(addprefix $$(BUILD)/$(1)/kernel/,$$(notdir $$(POSIX_KERNEL_SRCS:.c=.o))) \
	$$(addprefix $$(BUILD)/$(1)/app/,$$(POSIX_APP_SRCS:.c=.o))

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
