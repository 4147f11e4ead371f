# freertos-port/qemu.mk - the C build of every QEMU board, in one description.
#
# Included by the top Makefile, or read alone from the repository root (the end-to-end
# tests ask it for a board's QEMU command that way):
#
#   make -s -f freertos-port/qemu.mk TARGET=<board> QEMU_ELF=<image> \
#       --eval 'p: ; @echo $(QEMU_CMD_ICOUNT)' p
#
# It finds the FreeRTOS kernel once (KERNEL_DIR, which the POSIX port and bench/ use
# too), lists the kernel's sources once (KERNEL_SRC), reads every board's
# freertos-port/<board>/board.mk, and gives every board the same compile and link rules
# (QEMU_PORT_RULES below) and every Rust target they use the same archive rules.
#
# ---- Adding a port ------------------------------------------------------------------
#
# Create freertos-port/<board>/board.mk (nothing else to edit: it is found by its name).
# It appends the board to QEMU_BOARDS and sets the variables below, each named after the
# board (e.g. mps2-an385_CC). Paths are from the repository root, kernel paths from
# KERNEL_DIR. freertos-port/mps2-an385/board.mk is the example. A bare-metal board
# lists the board-independent files of freertos-port/bare-metal/ (main(), the console,
# the kernel's hooks: the lists of its bare-metal.mk) and provides what its README asks.
#
#   <board>_CC                C compiler (arm-none-eabi-gcc, riscv64-unknown-elf-gcc)
#   <board>_ARCH              CPU and ABI flags: every compile, the link, and the
#                             C library whose routines the Rust archive must not replace
#   <board>_CFLAGS            optional: more flags for every compile
#   <board>_KERNEL_PORT       the kernel's port directory (portable/GCC/ARM_CM3); it is on
#                             the include path
#   <board>_KERNEL_PORT_SRC   its files to build, .c or .S (port.c; port.c portASM.S)
#   <board>_HEAP              optional: the kernel's heap, portable/MemMang/<it>.c
#                             (default heap_4)
#   <board>_INC               the board's include directories, FreeRTOSConfig.h's first
#   <board>_SRC               the board's sources of demo.elf (.c or .S), next to demo/*.c
#   <board>_LDSCRIPT          linker script (-nostartfiles: the board's start-up code
#                             is among its sources)
#   <board>_LDFLAGS           more link flags (--specs=nano.specs, ...)
#   <board>_LDLIBS            optional: libraries after the Rust archive
#   <board>_RUST_TARGET       the Rust target of the archive demo.elf links
#                             (thumbv7m-none-eabi): built by `make lib-<target>`
#   <board>_NOLIB_SRC         optional: demo-nolib.elf, the demo without the library, is
#                             built with these sources (the API as stubs) in its place
#   <board>_DEMO_LIB          optional: `no` when the library cannot be built into the
#                             board's demo (no board says so now); demo.elf is then
#                             not among its images, demo-nolib.elf still is
#   <board>_APPS              optional: firmware of the board's own, without the library
#                             and the demo (riscv-virt-smp: smp_check), each <app>.elf
#                             from the kernel and the sources <board>_APP_SRC_<app>
#   <board>_VARIANTS          optional: variants of the demo (see "The demo's variants"
#                             below) the board builds, each as demo-<variant>.elf
#   <board>_SNAPSHOT_SRC      optional: snapshot.elf, these sources and the kernel linked
#                             with the minimal archive (`make lib-<target>-minimal`)
#   <board>_QEMU_CMD          the QEMU command lines, running $(QEMU_ELF): interactive
#   <board>_QEMU_CMD_ICOUNT   (console on the terminal: $(QEMU_CONSOLE)); the same under
#   <board>_QEMU_CMD_SCRIPT   -icount (what the end-to-end tests run); optional:
#                             scripted, stdin read through semihosting (deterministic
#                             to the byte)
#
# Then one entry in the table of tests/tests/e2e_qemu.rs runs the end-to-end checks on it.
#
# ---- What it provides ------------------------------------------------------------------
#
#   $(BUILD)/<board>/demo.elf       kernel + kernel port + board + demo/, linked with
#                                   the board's archive; objects in $(BUILD)/<board>/lib/
#   $(BUILD)/<board>/demo-nolib.elf with <board>_NOLIB_SRC: the same built with
#                                   -DCPU_USAGE_DISABLED (kernel without the hooks
#                                   header), objects in $(BUILD)/<board>/nolib/
#   $(BUILD)/<board>/<app>.elf      for each <app> in <board>_APPS: built like
#                                   demo-nolib.elf (-DCPU_USAGE_DISABLED), with whose
#                                   objects it shares the kernel's, in $(BUILD)/<board>/nolib/
#   $(BUILD)/<board>/demo-<v>.elf   for each variant <v> in <board>_VARIANTS: demo.elf
#                                   with the variant's sources and flags, objects (the
#                                   kernel's too) in $(BUILD)/<board>/<v>/
#   $(BUILD)/<board>/snapshot.elf   with <board>_SNAPSHOT_SRC (objects, the kernel's
#                                   too, in $(BUILD)/<board>/snapshot/)
#   <board> (phony)                 the board's images; QEMU_IMAGES: every board's
#   lib-<target>, lib-<target>-minimal (phony) and RUST_LIB/RUST_LIB_MINIMAL (functions
#                                   of the target: the archives' paths), for every Rust
#                                   target a board names. The archive is built with
#                                   --features trace (minimal: --no-default-features,
#                                   in target/minimal), then scripts/localize-libc.sh.
#   TARGET                          the board `make qemu` runs (default mps2-an385)
#   QEMU_ELF                        the image the commands run (default
#                                   $(BUILD)/$(TARGET)/demo.elf; demo-nolib.elf on a
#                                   board with <board>_DEMO_LIB no)
#   QEMU_CMD, QEMU_CMD_ICOUNT,      TARGET's commands. Run them under `timeout`, with
#   QEMU_CMD_SCRIPT                 stdin from a pipe or a file (a closed stdin breaks
#                                   the console on stdio).
#   QEMU_RUN                        what `make qemu` runs: QEMU_CMD through
#                                   scripts/qemu-console.sh, which ends the run at the
#                                   end of piped input as the POSIX simulator does
#   QEMU_CONSOLE                    the options that put a board's console on stdio,
#                                   for its interactive commands (below)
#
# Inputs (all have defaults): BUILD, CARGO, KERNEL_DIR (a FreeRTOS-Kernel directory),
# TARGET, QEMU_ELF.

BUILD ?= build
CARGO ?= cargo

# ---- The kernel ------------------------------------------------------------------------

# The kernel comes from the freertos-next crate's sources in Cargo's registry (a
# dependency of the tests/ crate), never from this repository: Cargo says where the
# package is (`cargo metadata` fetches it if needed), else the newest in the registry.
# Expanded once, here.
ifeq ($(origin KERNEL_DIR),undefined)
KERNEL_DIR := $(patsubst %/Cargo.toml,%/FreeRTOS-Kernel,$(shell \
    $(CARGO) metadata --format-version 1 2>/dev/null \
    | grep -o '"manifest_path":"[^"]*/freertos-next-[0-9][^"/]*/Cargo.toml"' \
    | sed -e 's/^"manifest_path":"//' -e 's/"$$//' | sort | tail -n 1))
ifeq ($(KERNEL_DIR),)
KERNEL_DIR := $(lastword $(sort $(wildcard \
    $(or $(CARGO_HOME),$(HOME)/.cargo)/registry/src/*/freertos-next-*/FreeRTOS-Kernel)))
endif
else
# Given by the includer or the command line: expanded once all the same, so that a
# recursive `KERNEL_DIR = $(shell ...)` does not run at every use.
KERNEL_DIR := $(KERNEL_DIR)
endif

# The kernel's portable sources, every port's; a port adds its heap and port files.
KERNEL_SRC := tasks.c queue.c list.c timers.c event_groups.c stream_buffer.c

.PHONY: kernel-check
kernel-check:
	@test -f "$(KERNEL_DIR)/tasks.c" || { \
	    echo "FreeRTOS-Kernel not found (KERNEL_DIR='$(KERNEL_DIR)')." >&2; \
	    echo "  Fetch the freertos-next crate (cargo fetch) or set KERNEL_DIR=/path/to/FreeRTOS-Kernel." >&2; \
	    exit 1; }

# ---- The Rust archives -----------------------------------------------------------------

# The C archive: the library built as a static library, with the panic handler and
# the critical section it brings for C firmware (Cargo.toml's [lib]). cargo build
# options follow it.
ARCHIVE_FEATURES := panic-handler,critical-section-impl
CARGO_ARCHIVE = $(CARGO) rustc --lib --crate-type staticlib --features $(ARCHIVE_FEATURES)

RUST_LIB = target/$(1)/release/libfreertos_cpu_usage.a
# A board with <board>_CORES above 1: the default build (no event trace, which is for
# one core so far) for that many cores (CPU_USAGE_CORES), in target/cores<N>, and the
# C header of that build in target/cores<N>/include (CPU_USAGE_CORES is in it: the
# hooks header, copied beside it, checks it against configNUMBER_OF_CORES).
RUST_LIB_CORES = target/cores$(2)/$(1)/release/libfreertos_cpu_usage.a
RUST_INC_CORES = target/cores$(1)/include
# The minimal build in a target directory of its own, so that it and the default build
# do not rebuild each other.
RUST_LIB_MINIMAL = target/minimal/$(1)/release/libfreertos_cpu_usage.a

# $(1): Rust target, $(2): C compiler and $(3): CPU flags of a board using it (which C
# library the archive's copies of its routines are checked against). The archives are rebuilt by cargo, which
# knows their sources; make only asks. The empty recipes make make look at the files'
# times again after cargo ran.
define QEMU_RUST_LIB_RULES
.PHONY: lib-$(1) lib-$(1)-minimal
lib-$(1):
	$$(CARGO_ARCHIVE) --release --features trace --target $(1)
	LOCALIZE_CC=$(2) scripts/localize-libc.sh $(call RUST_LIB,$(1)) $(3)

lib-$(1)-minimal:
	$$(CARGO_ARCHIVE) --release --target $(1) --no-default-features --target-dir target/minimal
	LOCALIZE_CC=$(2) scripts/localize-libc.sh $(call RUST_LIB_MINIMAL,$(1)) $(3)

$(call RUST_LIB,$(1)): lib-$(1)
	@:
$(call RUST_LIB_MINIMAL,$(1)): lib-$(1)-minimal
	@:
endef

# The archive and header for $(2) cores of Rust target $(1), for boards with
# <board>_CORES; $(3), $(4): as above.
define QEMU_RUST_CORES_LIB_RULES
.PHONY: lib-$(1)-cores$(2)
lib-$(1)-cores$(2):
	CPU_USAGE_CORES=$(2) CARGO_BUILD="$$(CARGO_ARCHIVE)" scripts/generated-header.sh $(call RUST_INC_CORES,$(2)) \
	    --release --target $(1) --target-dir target/cores$(2)
	LOCALIZE_CC=$(3) scripts/localize-libc.sh $(call RUST_LIB_CORES,$(1),$(2)) $(4)

$(call RUST_LIB_CORES,$(1),$(2)) $(call RUST_INC_CORES,$(2))/freertos_cpu_usage.h: lib-$(1)-cores$(2)
	@:
endef

# ---- The demo's variants -----------------------------------------------------------------

# The demo built with more sources (DEMO_VARIANT_SRC_<v>) and compile flags
# (DEMO_VARIANT_CFLAGS_<v>), kernel included, linked like demo.elf: a QEMU board lists
# the ones it builds in <board>_VARIANTS; the POSIX port's board.mk uses them too.
#
#   tracer   another trace tool beside the library, sharing the kernel's trace macros
#            with it: a stand-in that counts what it sees, and the firmware's header
#            that combines the two (demo/stand-in-tracer/); shell command `tracer`
#   notrace  without the library's event trace (CPU_USAGE_TRACE 0) on a board whose
#            demo has it: the image `make size` measures the library's share of
DEMO_VARIANTS := tracer notrace
DEMO_VARIANT_SRC_tracer := demo/stand-in-tracer/stand_in_tracer.c
DEMO_VARIANT_CFLAGS_tracer := -DDEMO_STAND_IN_TRACER=1 -I demo/stand-in-tracer
DEMO_VARIANT_SRC_notrace :=
DEMO_VARIANT_CFLAGS_notrace := -DCPU_USAGE_TRACE=0

# ---- The boards ------------------------------------------------------------------------

# The console on stdio, for every board's interactive commands. QEMU puts a terminal in
# raw mode; signal=off leaves Ctrl-C (0x03) to the demo's shell, which drops the line,
# where `-serial stdio` has QEMU end on it ("terminating on signal 2"), and Ctrl-\ and
# Ctrl-Z to the shell too. (`-serial mon:stdio` would also pass Ctrl-C on, but makes
# Ctrl-A QEMU's escape key, where it is the shell's Home.)
QEMU_CONSOLE := -chardev stdio,id=console,signal=off -serial chardev:console

QEMU_BOARDS :=
# The files every bare-metal board shares (freertos-port/bare-metal/), before the boards.
include freertos-port/bare-metal/bare-metal.mk
include $(sort $(filter-out freertos-port/posix/board.mk,$(wildcard freertos-port/*/board.mk)))

QEMU_DEMO_SRC := $(wildcard demo/*.c)

# Our own code (board and demo) is held to zero warnings; the kernel is not ours.
QEMU_WARN := -Wall -Wextra -Werror

# Objects of sources $(2) of board $(1) in variant $(3) (lib or nolib).
qemu_objs = $(addprefix $(BUILD)/$(1)/$(3)/,$(addsuffix .o,$(basename $(2))))
qemu_kernel_src = $(KERNEL_SRC) $(addprefix $($(1)_KERNEL_PORT)/,$($(1)_KERNEL_PORT_SRC)) \
    portable/MemMang/$(or $($(1)_HEAP),heap_4).c
qemu_kernel_objs = $(call qemu_objs,$(1),$(addprefix kernel/,$(call qemu_kernel_src,$(1))),$(2))

# Compile rules of board $(1), variant $(2), whose extra flags are $(3).
define QEMU_VARIANT_RULES
$(BUILD)/$(1)/$(2)/kernel/%.o: $(KERNEL_DIR)/%.c | kernel-check
	@mkdir -p $$(@D)
	$$($(1)_CC) $$(QEMU_CFLAGS_$(1)) $(3) -c $$< -o $$@

$(BUILD)/$(1)/$(2)/kernel/%.o: $(KERNEL_DIR)/%.S | kernel-check
	@mkdir -p $$(@D)
	$$($(1)_CC) $$(QEMU_CFLAGS_$(1)) $(3) -c $$< -o $$@

$(BUILD)/$(1)/$(2)/%.o: %.c | kernel-check
	@mkdir -p $$(@D)
	$$($(1)_CC) $$(QEMU_CFLAGS_$(1)) $$(QEMU_WARN) $(3) -c $$< -o $$@

$(BUILD)/$(1)/$(2)/%.o: %.S | kernel-check
	@mkdir -p $$(@D)
	$$($(1)_CC) $$(QEMU_CFLAGS_$(1)) $$(QEMU_WARN) $(3) -c $$< -o $$@
endef

# Variant $(2) of board $(1)'s demo: demo-$(2).elf (see "The demo's variants").
define QEMU_DEMO_VARIANT_RULES
$$(if $$(filter $(2),$$(DEMO_VARIANTS)),,$$(error $(1)_VARIANTS: $(2) is not a demo variant (the variants: $$(DEMO_VARIANTS))))
QEMU_VARIANT_OBJS_$(1)_$(2) := $(call qemu_kernel_objs,$(1),$(2)) \
    $(call qemu_objs,$(1),$($(1)_SRC) $(QEMU_DEMO_SRC) $(DEMO_VARIANT_SRC_$(2)),$(2))
$(1)_IMAGES += $(BUILD)/$(1)/demo-$(2).elf

$$(eval $$(call QEMU_VARIANT_RULES,$(1),$(2),$(DEMO_VARIANT_CFLAGS_$(2))))

$(BUILD)/$(1)/demo-$(2).elf: $$(QEMU_VARIANT_OBJS_$(1)_$(2)) $(call RUST_LIB,$($(1)_RUST_TARGET)) $($(1)_LDSCRIPT)
	$$($(1)_CC) $$(QEMU_LDFLAGS_$(1)) -Wl,-Map=$$(@:.elf=.map) -o $$@ \
	    $$(QEMU_VARIANT_OBJS_$(1)_$(2)) $(call RUST_LIB,$($(1)_RUST_TARGET)) $$($(1)_LDLIBS)

-include $$(QEMU_VARIANT_OBJS_$(1)_$(2):.o=.d)
endef

# Firmware $(2) of board $(1)'s own (see <board>_APPS): $(2).elf, without the library,
# compiled as the nolib objects are (their rules; the same kernel objects).
define QEMU_APP_RULES
QEMU_APP_OBJS_$(1)_$(2) := $(call qemu_kernel_objs,$(1),nolib) \
    $(call qemu_objs,$(1),$($(1)_APP_SRC_$(2)),nolib)
$(1)_IMAGES += $(BUILD)/$(1)/$(2).elf

$(BUILD)/$(1)/$(2).elf: $$(QEMU_APP_OBJS_$(1)_$(2)) $($(1)_LDSCRIPT)
	$$($(1)_CC) $$(QEMU_LDFLAGS_$(1)) -Wl,-Map=$$(@:.elf=.map) -o $$@ \
	    $$(QEMU_APP_OBJS_$(1)_$(2)) $$($(1)_LDLIBS)

-include $$(QEMU_APP_OBJS_$(1)_$(2):.o=.d)
endef

# Everything of board $(1).
define QEMU_PORT_RULES
# The archive the board's demo links, and where its C header is.
$(1)_LIB := $(if $(filter-out 1,$(or $($(1)_CORES),1)),$(call RUST_LIB_CORES,$($(1)_RUST_TARGET),$($(1)_CORES)),$(call RUST_LIB,$($(1)_RUST_TARGET)))
$(1)_LIB_INC := $(if $(filter-out 1,$(or $($(1)_CORES),1)),$(call RUST_INC_CORES,$($(1)_CORES)),include)
QEMU_CFLAGS_$(1) = $$($(1)_ARCH) -Os -g -std=gnu11 -ffunction-sections -fdata-sections -MMD -MP \
    -I $$($(1)_LIB_INC) -I include -I demo $$(addprefix -I ,$$($(1)_INC)) \
    -I $$(KERNEL_DIR)/include -I $$(KERNEL_DIR)/$$($(1)_KERNEL_PORT) $$($(1)_CFLAGS)
QEMU_LDFLAGS_$(1) = $$($(1)_ARCH) -T $$($(1)_LDSCRIPT) -nostartfiles -Wl,--gc-sections $$($(1)_LDFLAGS)

QEMU_OBJS_$(1) := $(call qemu_kernel_objs,$(1),lib) \
    $(call qemu_objs,$(1),$($(1)_SRC) $(QEMU_DEMO_SRC),lib)
$(1)_IMAGES := $(if $(filter no,$($(1)_DEMO_LIB)),,$(BUILD)/$(1)/demo.elf)

$$(eval $$(call QEMU_VARIANT_RULES,$(1),lib,))

$(BUILD)/$(1)/demo.elf: $$(QEMU_OBJS_$(1)) $$($(1)_LIB) $($(1)_LDSCRIPT)
	$$($(1)_CC) $$(QEMU_LDFLAGS_$(1)) -Wl,-Map=$$(@:.elf=.map) -o $$@ \
	    $$(QEMU_OBJS_$(1)) $$($(1)_LIB) $$($(1)_LDLIBS)

# (A build for several cores compiles against its own header, which comes first.)
ifneq ($$($(1)_LIB_INC),include)
$$(QEMU_OBJS_$(1)): | $$($(1)_LIB_INC)/freertos_cpu_usage.h
endif

ifneq ($(strip $($(1)_NOLIB_SRC) $($(1)_APPS)),)
$$(eval $$(call QEMU_VARIANT_RULES,$(1),nolib,-DCPU_USAGE_DISABLED))
endif

ifneq ($(strip $($(1)_NOLIB_SRC)),)
QEMU_NOLIB_OBJS_$(1) := $(call qemu_kernel_objs,$(1),nolib) \
    $(call qemu_objs,$(1),$($(1)_SRC) $(QEMU_DEMO_SRC) $($(1)_NOLIB_SRC),nolib)
$(1)_IMAGES += $(BUILD)/$(1)/demo-nolib.elf

$(BUILD)/$(1)/demo-nolib.elf: $$(QEMU_NOLIB_OBJS_$(1)) $($(1)_LDSCRIPT)
	$$($(1)_CC) $$(QEMU_LDFLAGS_$(1)) -Wl,-Map=$$(@:.elf=.map) -o $$@ \
	    $$(QEMU_NOLIB_OBJS_$(1)) $$($(1)_LDLIBS)
endif

$$(foreach v,$$($(1)_VARIANTS),$$(eval $$(call QEMU_DEMO_VARIANT_RULES,$(1),$$(v))))
$$(foreach a,$$($(1)_APPS),$$(eval $$(call QEMU_APP_RULES,$(1),$$(a))))

ifneq ($(strip $($(1)_SNAPSHOT_SRC)),)
# Objects of their own, the kernel's included: the minimal archive has no event trace,
# so the hooks must call the untraced functions whatever the board's demo does.
QEMU_SNAPSHOT_OBJS_$(1) := $(call qemu_kernel_objs,$(1),snapshot) \
    $(call qemu_objs,$(1),$($(1)_SNAPSHOT_SRC),snapshot)
$(1)_IMAGES += $(BUILD)/$(1)/snapshot.elf

$$(eval $$(call QEMU_VARIANT_RULES,$(1),snapshot,-DCPU_USAGE_TRACE=0))

$(BUILD)/$(1)/snapshot.elf: $$(QEMU_SNAPSHOT_OBJS_$(1)) $(call RUST_LIB_MINIMAL,$($(1)_RUST_TARGET)) $($(1)_LDSCRIPT)
	$$($(1)_CC) $$(QEMU_LDFLAGS_$(1)) -Wl,-Map=$$(@:.elf=.map) -o $$@ \
	    $$(QEMU_SNAPSHOT_OBJS_$(1)) $(call RUST_LIB_MINIMAL,$($(1)_RUST_TARGET)) $$($(1)_LDLIBS)
endif

.PHONY: $(1)
$(1): $$($(1)_IMAGES)

-include $$(QEMU_OBJS_$(1):.o=.d) $$(QEMU_NOLIB_OBJS_$(1):.o=.d) $$(QEMU_SNAPSHOT_OBJS_$(1):.o=.d)
endef

$(foreach b,$(QEMU_BOARDS),$(eval $(call QEMU_PORT_RULES,$(b))))

QEMU_IMAGES := $(foreach b,$(QEMU_BOARDS),$($(b)_IMAGES))

# One set of archive rules per Rust target, with the compiler and CPU flags of the
# first board that uses it.
QEMU_RUST_TARGETS := $(sort $(foreach b,$(QEMU_BOARDS),$($(b)_RUST_TARGET)))
qemu_first_board_of = $(firstword $(foreach b,$(QEMU_BOARDS),$(if $(filter $(1),$($(b)_RUST_TARGET)),$(b))))
$(foreach t,$(QEMU_RUST_TARGETS),$(eval $(call QEMU_RUST_LIB_RULES,$(t),$($(call qemu_first_board_of,$(t))_CC),$($(call qemu_first_board_of,$(t))_ARCH))))
# And per Rust target and core count of the boards with <board>_CORES.
QEMU_CORES_LIBS := $(sort $(foreach b,$(QEMU_BOARDS),$(if $(filter-out 1,$(or $($(b)_CORES),1)),$($(b)_RUST_TARGET):$($(b)_CORES))))
$(foreach l,$(QEMU_CORES_LIBS),$(eval $(call QEMU_RUST_CORES_LIB_RULES,$(word 1,$(subst :, ,$(l))),$(word 2,$(subst :, ,$(l))),$($(call qemu_first_board_of,$(word 1,$(subst :, ,$(l))))_CC),$($(call qemu_first_board_of,$(word 1,$(subst :, ,$(l))))_ARCH))))

# ---- Running one board -----------------------------------------------------------------

TARGET ?= mps2-an385
# A board without the library in its demo (<board>_DEMO_LIB no) runs demo-nolib.elf.
QEMU_ELF ?= $(BUILD)/$(TARGET)/$(if $(filter no,$($(TARGET)_DEMO_LIB)),demo-nolib.elf,demo.elf)

# An unknown board stops whatever asks for its command.
qemu_target_check = $(if $(filter $(TARGET),$(QEMU_BOARDS)),,$(error TARGET=$(TARGET) is not a QEMU board (the boards: $(QEMU_BOARDS))))
QEMU_CMD = $(qemu_target_check)$($(TARGET)_QEMU_CMD)
QEMU_CMD_ICOUNT = $(qemu_target_check)$($(TARGET)_QEMU_CMD_ICOUNT)
QEMU_CMD_SCRIPT = $(qemu_target_check)$($(TARGET)_QEMU_CMD_SCRIPT)
QEMU_RUN = scripts/qemu-console.sh $(QEMU_CMD)
