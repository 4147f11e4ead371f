# dist/dist.mk - the prebuilt archives for C projects without Rust: `make dist` and
# `make dist-check`. Included by the top Makefile after freertos-port/qemu.mk, whose archive
# command (CARGO_ARCHIVE) and boards (their Rust targets, compilers, CPU flags and QEMU
# commands) it uses, and whose target directories (RUST_LIB, RUST_LIB_MINIMAL,
# RUST_LIB_CORES) it builds in. Run from the repository root.
#
#   make dist        $(BUILD)/dist/freertos-cpu-usage-<version>.tar.gz (and its .sha256):
#                    every core of the README's target table in the minimal, default
#                    and trace builds, the headers, the CMake package, the pkg-config
#                    files and SHA256SUMS (the layout: dist/README.md, which it ships)
#   make dist-check  unpacks the tarball, checks its SHA256SUMS, and for every archive:
#                    its C library routines left to the firmware, an empty image of its
#                    core linked with it (a main() that calls cpu_usage_abi_version()
#                    and compares it with the header's), and that image run under QEMU
#                    (on the host, natively) to exit status 0
#
# The archives are built with the boards' own commands into the boards' own target
# directories (trace: target/, minimal: target/minimal, two cores: target/cores2), so
# that after `make test-build` cargo finds those up to date; the default build, which
# no board links, goes to target/default. Every archive is copied into the tree and its
# copy localized (scripts/localize-libc.sh); a copy that comes out the same as the one
# in the tree is not written, so the tarball is made again only when an archive changed.
# The copies leave out the LLVM bitcode Rust puts beside the machine code of its
# standard library's objects (.llvmbc: 40% of an archive), which no C linker reads.
# The tarball is reproducible: its files sorted, owned by 0, dated by the last commit.

DIST_VERSION := $(shell sed -n 's/^version = "\([^"]*\)"$$/\1/p' Cargo.toml | head -n 1)
DIST_NAME := freertos-cpu-usage-$(DIST_VERSION)
DIST_OUT := $(BUILD)/dist
DIST_TREE := $(DIST_OUT)/$(DIST_NAME)
DIST_TARBALL := $(DIST_OUT)/$(DIST_NAME).tar.gz
DIST_CHECK := $(DIST_OUT)/check
# The Rust target of this host, whose archive is built without --target (target/release:
# the POSIX simulator's).
DIST_HOST := $(shell $(CARGO) -vV 2>/dev/null | sed -n 's/^host: //p')

# ---- What is built ----------------------------------------------------------------------

# The README's target table, one Rust target per row.
DIST_BARE_TARGETS := thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabi thumbv7em-none-eabihf \
    thumbv8m.base-none-eabi thumbv8m.main-none-eabihf riscv32imac-unknown-none-elf riscv32imc-unknown-none-elf
DIST_TARGETS := $(DIST_BARE_TARGETS) $(DIST_HOST)
DIST_BUILDS := minimal default trace
DIST_FEATURES_minimal := --no-default-features
DIST_FEATURES_default :=
DIST_FEATURES_trace := --features trace
# Several cores: the table's SMP row. Its builds have no event trace (one core so far:
# the library refuses to build it).
DIST_SMP_TARGETS := riscv32imac-unknown-none-elf
DIST_SMP_CORES := 2
DIST_SMP_BUILDS := minimal default

# Per Rust target: the C compiler and CPU flags its archive is localized and its empty
# image linked with, and the QEMU board that runs that image. A core with a board of its
# own takes the board's; the three without one run on the board whose core runs their
# code too (Cortex-M4 soft-float code on the Cortex-M4F, ARMv8-M Baseline on the
# Cortex-M33, RV32IMC on RV32IMAC). DIST_MEM: where the board's code and RAM start.
dist_board_of = $(foreach b,$(QEMU_BOARDS),$(if $(filter $(1),$($(b)_RUST_TARGET)),$(if $($(b)_CORES),,$(b))))
define DIST_FROM_BOARD
DIST_CC_$(1) := $$($(2)_CC)
DIST_ARCH_$(1) := $$($(2)_ARCH)
DIST_RUN_$(1) := $(2)
endef
$(foreach t,thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf riscv32imac-unknown-none-elf,\
    $(eval $(call DIST_FROM_BOARD,$(t),$(firstword $(call dist_board_of,$(t))))))
DIST_CC_thumbv7em-none-eabi := arm-none-eabi-gcc
DIST_ARCH_thumbv7em-none-eabi := -mcpu=cortex-m4 -mthumb -mfloat-abi=soft
DIST_RUN_thumbv7em-none-eabi := mps2-an386
DIST_CC_thumbv8m.base-none-eabi := arm-none-eabi-gcc
DIST_ARCH_thumbv8m.base-none-eabi := -mcpu=cortex-m23 -mthumb
DIST_RUN_thumbv8m.base-none-eabi := mps2-an505
DIST_CC_riscv32imc-unknown-none-elf := riscv64-unknown-elf-gcc
DIST_ARCH_riscv32imc-unknown-none-elf := -march=rv32imc -mabi=ilp32 --specs=picolibc.specs
DIST_RUN_riscv32imc-unknown-none-elf := riscv-virt
DIST_CC_$(DIST_HOST) := $(or $(POSIX_CC),cc)
DIST_MEM_microbit := 0x00000000 0x20000000
DIST_MEM_mps2-an385 := 0x00000000 0x20000000
DIST_MEM_mps2-an386 := 0x00000000 0x20000000
DIST_MEM_mps2-an505 := 0x10000000 0x38000000
DIST_MEM_riscv-virt := 0x80000000 0x80100000
DIST_MEM_riscv-virt-smp2 := 0x80000000 0x80100000

# A target whose standard library rustup could not install (thumbv8m.base-none-eabi on
# a mirror without it) builds its `core` from the rust-src component instead (cargo's
# -Zbuild-std, allowed on a stable toolchain by RUSTC_BOOTSTRAP); its three builds share
# one target directory, so that `core` is compiled once. Asked when the archive is
# built (once: the first use keeps the answer), not each time make starts.
DIST_INSTALLED = $(eval DIST_INSTALLED := $(shell rustup target list --installed 2>/dev/null))$(DIST_INSTALLED)
dist_installed = $(filter $(1),$(DIST_INSTALLED))
dist_build_std = $(if $(filter $(DIST_HOST),$(1))$(call dist_installed,$(1)),,RUSTC_BOOTSTRAP=1)
dist_build_std_args = $(if $(filter $(DIST_HOST),$(1))$(call dist_installed,$(1)),,-Zbuild-std=core)

# The target directory of build $(2) of target $(1) for $(3) cores, and the archive cargo
# leaves there: the boards' own where a board links the same build.
dist_target_dir = $(strip \
    $(if $(filter-out 1,$(3)),target/cores$(3)$(if $(filter minimal,$(2)),-minimal),\
    $(if $(filter $(DIST_HOST),$(1))$(call dist_installed,$(1)),\
        $(if $(filter trace,$(2)),target,target/$(2)),\
        target/build-std)))
dist_cargo_lib = $(call dist_target_dir,$(1),$(2),$(3))/$(if $(filter $(DIST_HOST),$(1)),,$(1)/)release/libfreertos_cpu_usage.a
dist_target_arg = $(if $(filter $(DIST_HOST),$(1)),,--target $(1))
# Where the tree keeps builds for $(1) cores: the top for one, cores<N>/ for more.
dist_prefix = $(DIST_TREE)$(if $(filter-out 1,$(1)),/cores$(1))

# ---- The tree and the tarball -------------------------------------------------------------

DIST_ARCHIVES :=
# A target's builds are made one after the other (each waits for the one before): where
# two share a target directory (build-std), one must not overwrite the archive there
# while the other's is copied. Different targets' builds may run together (make -j:
# `make dist` and `make dist-check` run with one job per core), every other target
# taking its builds in the opposite order, so that two jobs seldom wait for the same
# target directory's lock.
DIST_FLIP :=

# The archive of build $(2) of target $(1) for $(3) cores.
define DIST_ARCHIVE_RULES
DIST_ARCHIVE_$(1)_$(2)_$(3) := $(call dist_prefix,$(3))/lib/$(1)/$(2)/libfreertos_cpu_usage.a
DIST_ARCHIVES += $$(DIST_ARCHIVE_$(1)_$(2)_$(3))

$$(DIST_ARCHIVE_$(1)_$(2)_$(3)): FORCE | $(DIST_LAST_$(1)_$(3))
	@mkdir -p $$(@D)
	$(if $(filter-out 1,$(3)),CPU_USAGE_CORES=$(3) )$$(call dist_build_std,$(1)) $$(CARGO_ARCHIVE) -q --release \
	    $(call dist_target_arg,$(1)) $(DIST_FEATURES_$(2)) --target-dir $$(call dist_target_dir,$(1),$(2),$(3)) \
	    $$(call dist_build_std_args,$(1))
	@mkdir -p $(DIST_OUT)/stamps
	@if [ ! -f $$@ ] || [ $$(call dist_cargo_lib,$(1),$(2),$(3)) -nt $(DIST_OUT)/stamps/$(1)-$(2)-$(3) ]; then \
	    cp $$(call dist_cargo_lib,$(1),$(2),$(3)) $$@.new && \
	    $(if $(filter $(DIST_HOST),$(1)),,LOCALIZE_CACHE=$(DIST_OUT)/libc-routines LOCALIZE_CC=$(DIST_CC_$(1)) \
	        scripts/localize-libc.sh $$@.new $(DIST_ARCH_$(1)) &&) \
	    llvm-objcopy --remove-section=.llvmbc --remove-section=.llvmcmd $$@.new && \
	    if cmp -s $$@.new $$@; then rm $$@.new; else mv $$@.new $$@; echo "dist: wrote $$@"; fi; \
	fi
	@touch $(DIST_OUT)/stamps/$(1)-$(2)-$(3)
DIST_LAST_$(1)_$(3) := $$(DIST_ARCHIVE_$(1)_$(2)_$(3))
endef

dist_in_order = $(eval DIST_FLIP := $(if $(DIST_FLIP),,x))$(if $(DIST_FLIP),$(1),$(call dist_reverse,$(1)))
dist_reverse = $(if $(1),$(call dist_reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
$(foreach t,$(DIST_TARGETS),$(foreach b,$(call dist_in_order,$(DIST_BUILDS)),$(eval $(call DIST_ARCHIVE_RULES,$(t),$(b),1))))
$(foreach t,$(DIST_SMP_TARGETS),$(foreach b,$(call dist_in_order,$(DIST_SMP_BUILDS)),\
    $(eval $(call DIST_ARCHIVE_RULES,$(t),$(b),$(DIST_SMP_CORES)))))

# The headers of each core count, from the build that made its default archive (the
# settings' header is the build's, which says CPU_USAGE_CORES; the API and hooks
# headers are include/'s).
DIST_HEADERS := freertos_cpu_usage.h freertos_cpu_usage_config.h freertos_cpu_usage_hooks.h

$(DIST_TREE)/include/freertos_cpu_usage_config.h: FORCE | $(DIST_LAST_$(DIST_HOST)_1)
	@CARGO_BUILD="$(CARGO_ARCHIVE)" scripts/generated-header.sh $(@D) --release \
	    --target-dir $(call dist_target_dir,$(DIST_HOST),default,1) | grep -v 'is up to date$$' || true

$(DIST_TREE)/cores$(DIST_SMP_CORES)/include/freertos_cpu_usage_config.h: FORCE | \
    $(DIST_LAST_$(firstword $(DIST_SMP_TARGETS))_$(DIST_SMP_CORES))
	@CPU_USAGE_CORES=$(DIST_SMP_CORES) CARGO_BUILD="$(CARGO_ARCHIVE)" scripts/generated-header.sh $(@D) --release \
	    --target $(firstword $(DIST_SMP_TARGETS)) \
	    --target-dir $(call dist_target_dir,$(firstword $(DIST_SMP_TARGETS)),default,$(DIST_SMP_CORES)) \
	    | grep -v 'is up to date$$' || true

$(addprefix $(DIST_TREE)/include/,$(filter-out freertos_cpu_usage_config.h,$(DIST_HEADERS))): \
    $(DIST_TREE)/include/freertos_cpu_usage_config.h
	@:
$(addprefix $(DIST_TREE)/cores$(DIST_SMP_CORES)/include/,$(filter-out freertos_cpu_usage_config.h,$(DIST_HEADERS))): \
    $(DIST_TREE)/cores$(DIST_SMP_CORES)/include/freertos_cpu_usage_config.h
	@:

# The CMake package (lib/cmake/freertos_cpu_usage/: find_package(freertos_cpu_usage)
# with the tree, or a tree that holds it, in CMAKE_PREFIX_PATH) and the pkg-config file
# of each core count (lib/pkgconfig/).
DIST_CMAKE_DIR := $(DIST_TREE)/lib/cmake/freertos_cpu_usage
DIST_CMAKE := $(DIST_CMAKE_DIR)/freertos_cpu_usageConfig.cmake \
    $(DIST_CMAKE_DIR)/freertos_cpu_usageConfigVersion.cmake \
    $(DIST_CMAKE_DIR)/freertos_cpu_usage_rust_target.cmake
DIST_PC := $(DIST_TREE)/lib/pkgconfig/freertos_cpu_usage.pc \
    $(DIST_TREE)/cores$(DIST_SMP_CORES)/lib/pkgconfig/freertos_cpu_usage.pc

$(DIST_CMAKE_DIR)/freertos_cpu_usageConfig.cmake: cmake/freertos_cpu_usageConfig.cmake
	@mkdir -p $(@D)
	cp $< $@
$(DIST_CMAKE_DIR)/freertos_cpu_usage_rust_target.cmake: cmake/freertos_cpu_usage_rust_target.cmake
	@mkdir -p $(@D)
	cp $< $@
$(DIST_CMAKE_DIR)/freertos_cpu_usageConfigVersion.cmake: cmake/freertos_cpu_usageConfigVersion.cmake.in Cargo.toml
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(DIST_VERSION)/g' $< > $@
$(DIST_TREE)/lib/pkgconfig/freertos_cpu_usage.pc: dist/freertos_cpu_usage.pc.in Cargo.toml
	@mkdir -p $(@D)
	sed -e 's/@VERSION@/$(DIST_VERSION)/g' -e 's/@TARGET@/$(DIST_HOST)/g' -e 's/@CORES@/1/g' $< > $@
$(DIST_TREE)/cores$(DIST_SMP_CORES)/lib/pkgconfig/freertos_cpu_usage.pc: dist/freertos_cpu_usage.pc.in Cargo.toml
	@mkdir -p $(@D)
	sed -e 's/@VERSION@/$(DIST_VERSION)/g' -e 's/@TARGET@/$(firstword $(DIST_SMP_TARGETS))/g' \
	    -e 's/@CORES@/$(DIST_SMP_CORES)/g' $< > $@

$(DIST_TREE)/README.md: dist/README.md
	@mkdir -p $(@D)
	cp $< $@
$(DIST_TREE)/CHANGELOG.md: CHANGELOG.md
	@mkdir -p $(@D)
	cp $< $@

# Every file of the tree, and nothing else: a file left from an older tree is not shipped.
DIST_FILES := $(DIST_TREE)/README.md $(DIST_TREE)/CHANGELOG.md \
    $(addprefix $(DIST_TREE)/include/,$(DIST_HEADERS)) \
    $(addprefix $(DIST_TREE)/cores$(DIST_SMP_CORES)/include/,$(DIST_HEADERS)) \
    $(DIST_ARCHIVES) $(DIST_CMAKE) $(DIST_PC)

$(DIST_TREE)/SHA256SUMS: $(DIST_FILES)
	@cd $(DIST_TREE) && sha256sum $(patsubst $(DIST_TREE)/%,%,$(sort $(DIST_FILES))) > SHA256SUMS.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; echo "dist: wrote $@"; fi

# Dated by the last commit (or 0 outside a git clone), so the same sources give the
# same bytes.
DIST_EPOCH = $(or $(shell git log -1 --format=%ct 2>/dev/null),0)

$(DIST_TARBALL): $(DIST_TREE)/SHA256SUMS
	tar --sort=name --owner=0 --group=0 --numeric-owner --mode=u+rw,go+r,go-w --mtime=@$(DIST_EPOCH) \
	    -C $(DIST_OUT) -cf - $(patsubst $(DIST_OUT)/%,%,$(sort $(DIST_FILES) $(DIST_TREE)/SHA256SUMS)) \
	    | gzip -n > $@.new
	@mv $@.new $@
	@cd $(DIST_OUT) && sha256sum $(notdir $@) > $(notdir $@).sha256
	@echo "dist: $@ ($$(du -k $@ | cut -f1) KiB, $(words $(DIST_ARCHIVES)) archives)"

.PHONY: dist dist-tarball dist-check FORCE
FORCE:

# One job per core (see DIST_FLIP).
DIST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

dist: setup
	@$(MAKE) --no-print-directory -j$(DIST_JOBS) dist-tarball

dist-tarball: $(DIST_TARBALL)

# ---- The check ------------------------------------------------------------------------------

DIST_UNPACKED := $(DIST_CHECK)/$(DIST_NAME)

$(DIST_CHECK)/unpacked: $(DIST_TARBALL)
	@rm -rf $(DIST_CHECK) && mkdir -p $(DIST_CHECK)
	tar -xzf $< -C $(DIST_CHECK)
	cd $(DIST_UNPACKED) && sha256sum --quiet --strict -c SHA256SUMS
	@touch $@

DIST_CHECKS :=

# The unpacked tree's directory for $(1) cores, and the board that runs target $(1)'s
# image for $(2) cores.
dist_unpacked_prefix = $(patsubst $(DIST_TREE)%,$(DIST_UNPACKED)%,$(call dist_prefix,$(1)))
dist_run = $(DIST_RUN_$(1))$(if $(filter-out 1,$(2)),-smp$(2))

# Build $(2) of the host's target $(1): linked with the flags its pkg-config file gives,
# run.
define DIST_CHECK_HOST_RULES
DIST_CHECKS += dist-check-$(1)-$(2)-1
.PHONY: dist-check-$(1)-$(2)-1
dist-check-$(1)-$(2)-1: $(DIST_CHECK)/unpacked
	@$(DIST_CC_$(1)) -std=c11 -Wall -Wextra -Werror -Wl,--gc-sections -o $(DIST_CHECK)/$(1)-$(2)-1 dist/check/empty_main.c \
	    $$$$(PKG_CONFIG_PATH=$(DIST_UNPACKED)/lib/pkgconfig pkg-config --define-variable=build=$(2) \
	        --cflags --libs freertos_cpu_usage)
	@$(DIST_CHECK)/$(1)-$(2)-1
	@echo "dist-check: $(1) $(2): linked with pkg-config's flags, ran: exit status 0"
endef

# Build $(2) of bare-metal target $(1) for $(3) cores: its C library routines left to the
# firmware, an empty image linked with it (compiled with Zicsr spelled out on RISC-V, for
# the hart number; linked with the multilib's flags), run on the board to status 0.
define DIST_CHECK_BARE_RULES
DIST_CHECKS += dist-check-$(1)-$(2)-$(3)
.PHONY: dist-check-$(1)-$(2)-$(3)
dist-check-$(1)-$(2)-$(3): QEMU_ELF = $(DIST_CHECK)/$(1)-$(2)-$(3).elf
dist-check-$(1)-$(2)-$(3): $(DIST_CHECK)/unpacked
	@LOCALIZE_CACHE=$(DIST_OUT)/libc-routines LOCALIZE_CC=$(DIST_CC_$(1)) scripts/localize-libc.sh --check \
	    $(call dist_unpacked_prefix,$(3))/lib/$(1)/$(2)/libfreertos_cpu_usage.a $(DIST_ARCH_$(1))
	@$(DIST_CC_$(1)) $(DIST_ARCH_$(1)) $(if $(filter riscv%,$(1)),-march=$(patsubst riscv32%-unknown-none-elf,rv32%,$(1))_zicsr) \
	    -std=c11 -Os -ffreestanding -ffunction-sections -Wall -Wextra -Werror \
	    -I $(call dist_unpacked_prefix,$(3))/include -c dist/check/empty_main.c -o $$(QEMU_ELF:.elf=.o)
	@$(DIST_CC_$(1)) $(DIST_ARCH_$(1)) -nostartfiles -T dist/check/empty.ld \
	    -Wl,--defsym=DIST_CODE=$(word 1,$(DIST_MEM_$(call dist_run,$(1),$(3)))) \
	    -Wl,--defsym=DIST_RAM=$(word 2,$(DIST_MEM_$(call dist_run,$(1),$(3)))) \
	    -Wl,--gc-sections -Wl,--no-warn-execstack -Wl,--no-warn-rwx-segments -o $$(QEMU_ELF) $$(QEMU_ELF:.elf=.o) \
	    $(call dist_unpacked_prefix,$(3))/lib/$(1)/$(2)/libfreertos_cpu_usage.a
	@timeout 30 $$($(call dist_run,$(1),$(3))_QEMU_CMD) </dev/null > $$(QEMU_ELF:.elf=.log) 2>&1 || \
	    { echo "dist-check: $(1) $(2), $(3) core(s): the empty image did not end with status 0 on $(call dist_run,$(1),$(3)):" >&2; \
	      cat $$(QEMU_ELF:.elf=.log) >&2; exit 1; }
	@echo "dist-check: $(1) $(2)$(if $(filter-out 1,$(3)), for $(3) cores): C library routines left to the firmware, linked, ran on $(call dist_run,$(1),$(3)): exit status 0"
endef

dist_check_rules = $(if $(filter $(DIST_HOST),$(1)),DIST_CHECK_HOST_RULES,DIST_CHECK_BARE_RULES)
$(foreach t,$(DIST_TARGETS),$(foreach b,$(DIST_BUILDS),$(eval $(call $(call dist_check_rules,$(t)),$(t),$(b),1))))
$(foreach t,$(DIST_SMP_TARGETS),$(foreach b,$(DIST_SMP_BUILDS),\
    $(eval $(call DIST_CHECK_BARE_RULES,$(t),$(b),$(DIST_SMP_CORES)))))

# (The unpacked tree goes once checked: it is the tarball's size again.)
dist-check: $(DIST_CHECKS)
	@rm -rf $(DIST_UNPACKED) $(DIST_CHECK)/unpacked
	@echo "dist-check: $(words $(DIST_CHECKS)) archives of $(DIST_TARBALL) checked"
