# freertos-cpu-usage: the two commands are `make run` and `make test`.
#
#   make run     set up what is missing, build the library and the POSIX simulator,
#                start it with its shell on this terminal
#   make test    set up what is missing, build everything, run every test
#   make qemu    the same demo on an emulated Cortex-M3 (QEMU mps2-an385); make qemu
#                TARGET=<board> on any QEMU board (freertos-port/<board>/)
#   make top     the simulator with the live viewer cpu-usage-top (top/top.mk: top-qemu,
#                top-install)
#   make lib     the library for this host:  target/release/libfreertos_cpu_usage.a
#   make lib-cm3 the library for Cortex-M3:  target/thumbv7m-none-eabi/release/...
#                (make lib-<rust target>: the same for any target a QEMU board uses)
#   make lib-cm3-minimal
#                its minimal build (no shell): target/minimal/thumbv7m-none-eabi/release/...
#                (make lib-<rust target>-minimal)
#   make lib-rv32 the library for RISC-V RV32: target/riscv32imac-unknown-none-elf/release/...
#   make qemu-image  every QEMU board's images (make <board>: one board's)
#   make dist    the prebuilt archives of every core in the README's target table, with
#                headers, CMake package, pkg-config files and checksums, in one tarball:
#                build/dist/freertos-cpu-usage-<version>.tar.gz (dist/dist.mk; make
#                dist-check links and runs each archive in an empty image of its core)
#   make header  regenerate include/freertos_cpu_usage.h from the sources (cbindgen,
#                scripts/header-gen: the library's build runs no code generator) and
#                include/freertos_cpu_usage_config.h, the default build's settings;
#                a test fails when either committed one is stale
#   make size    what each build of the library costs a Cortex-M3 image; writes FOOTPRINT
#   make soak    100,000 task creations through the ID pool, every window checked
#   make bench   instruction counts (callgrind, QEMU) and the readers' stack: writes
#                BENCHMARKS.md and bench/figures.txt (make bench-stack: the stack alone;
#                make bench-check: every budget on the committed figures;
#                make bench-check-hot: the hot path's alone, which make test checks)
#   make miri    the library's unit tests under Miri (needs a nightly toolchain)
#   make fuzz    each fuzz target for FUZZ_SECONDS (default 180): fuzz/README.md
#   make clean
#
# The QEMU boards are built by one description, freertos-port/qemu.mk (which also finds
# the FreeRTOS kernel); each board lists its own files and flags in
# freertos-port/<board>/board.mk. The POSIX simulator's rules: freertos-port/posix/board.mk.

BUILD ?= build
CARGO ?= cargo
LIB := target/release/libfreertos_cpu_usage.a
LIB_CM3 := target/thumbv7m-none-eabi/release/libfreertos_cpu_usage.a
# The minimal build (--no-default-features) in a target directory of its own, so that it
# and LIB_CM3 do not rebuild each other.
LIB_CM3_MINIMAL := target/minimal/thumbv7m-none-eabi/release/libfreertos_cpu_usage.a
LIB_RV32 := target/riscv32imac-unknown-none-elf/release/libfreertos_cpu_usage.a
# Committed footprint figures; `make test` fails when the library grows past them.
FOOTPRINT := freertos-port/mps2-an385/footprint.txt

# The included files define rules of their own; `make` alone still means `make all`.
.DEFAULT_GOAL := all

include freertos-port/qemu.mk
include freertos-port/posix/board.mk
include bench/bench.mk
include top/top.mk
include dist/dist.mk

.PHONY: all setup lib lib-cm3 lib-cm3-minimal lib-rv32 header sim qemu-image run qemu size test test-build soak miri fuzz clean

all: sim qemu-image

setup:
	@scripts/setup.sh

lib:
	$(CARGO_ARCHIVE) --release --features trace

# The bare-metal archives' rules are qemu.mk's (lib-<rust target>): the archive's
# copies of C library routines (compiler-builtins' memcpy, memset...) are made local
# there, so the firmware keeps its own (scripts/localize-libc.sh).
lib-cm3: lib-thumbv7m-none-eabi
lib-cm3-minimal: lib-thumbv7m-none-eabi-minimal
lib-rv32: lib-riscv32imac-unknown-none-elf

# The archive is rebuilt by cargo, which knows its sources; make only asks. The empty
# recipe makes make look at the file's time again after cargo ran.
$(LIB): lib
	@:

header:
	$(CARGO) run -q -p freertos-cpu-usage-header
	CARGO_BUILD="$(CARGO_ARCHIVE)" scripts/generated-header.sh include --release --features trace

sim: $(BUILD)/posix/freertos-sim

qemu-image: $(QEMU_IMAGES)

run: setup
	@$(MAKE) --no-print-directory sim
	$(BUILD)/posix/freertos-sim

# TARGET (default mps2-an385) names the board; QEMU_ELF another of its images.
qemu: setup
	@$(MAKE) --no-print-directory $(QEMU_ELF)
	$(QEMU_RUN)

size: setup qemu-image
	@{ echo "# What libfreertos_cpu_usage.a costs a Cortex-M3 firmware, in bytes (written by"; \
	   echo "# 'make size': scripts/footprint.sh says how each figure is measured)."; \
	   echo "# <build>.*: every C API function of the build linked into an empty image, 32 IDs;"; \
	   echo "# the rest: what the library adds to the mps2-an385 demo without the event trace"; \
	   echo "# (demo-notrace.elf minus demo-nolib.elf). 'make test' fails when a figure grows"; \
	   echo "# more than 10%."; \
	   CARGO_ARCHIVE="$(CARGO_ARCHIVE)" scripts/footprint.sh show $(BUILD)/mps2-an385/demo-notrace.elf $(BUILD)/mps2-an385/demo-nolib.elf; \
	 } > $(FOOTPRINT).new
	@mv $(FOOTPRINT).new $(FOOTPRINT)
	@cat $(FOOTPRINT)
	@scripts/footprint.sh verdicts $(FOOTPRINT)

# Everything the tests run, built first so the test runners find it; and the viewer as
# `make top` builds it, so that `make top` starts at once after `make test`.
test-build: $(POSIX_SIMS) qemu-image top-build

test: setup
	@$(MAKE) --no-print-directory test-build
	@# The prebuilt archives (make dist), each linked into an empty image of its core and
	@# run; the CMake tests below build applications against the tarball.
	@$(MAKE) --no-print-directory -j$(DIST_JOBS) dist-check
	@# (The engine's tests run at 1, 32, 256 and 1024 task IDs in the library's.)
	$(CARGO) test --workspace
	@# The minimal build (no shell, no trace): the engine and its C API on a simulated clock.
	$(CARGO) test --lib --no-default-features --target-dir target/minimal
	@# Built for two cores (CPU_USAGE_CORES=2): the SMP hooks and the report of every core.
	CPU_USAGE_CORES=2 $(CARGO) test --lib --target-dir target/smp smp_tests
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) fmt --all --check
	@# The Rust API's documentation, every link resolved (its examples ran above as doctests).
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p freertos-cpu-usage
	$(CARGO) clippy --release --target thumbv7m-none-eabi --features trace -- -D warnings
	$(CARGO) clippy --release --target thumbv7m-none-eabi --no-default-features -- -D warnings
	$(CARGO) clippy --release --target thumbv7m-none-eabi --no-default-features --features watchdogs -- -D warnings
	@# Cortex-M0 (ARMv6-M: no atomic swap, no BASEPRI): every build must compile for it.
	$(CARGO) clippy --release --target thumbv6m-none-eabi --features trace -- -D warnings
	$(CARGO) clippy --release --target thumbv6m-none-eabi --no-default-features -- -D warnings
	@# Hard-float Cortex-M4F/M7 and Cortex-M33 (the firmware's float ABI picks the target).
	$(CARGO) clippy --release --target thumbv7em-none-eabihf --features trace -- -D warnings
	$(CARGO) clippy --release --target thumbv8m.main-none-eabihf --features trace -- -D warnings
	@# RISC-V RV32 (riscv32imac; riscv32imc: no atomic read-modify-write either).
	$(CARGO) clippy --release --target riscv32imac-unknown-none-elf --features trace -- -D warnings
	$(CARGO) clippy --release --target riscv32imac-unknown-none-elf --no-default-features -- -D warnings
	$(CARGO) clippy --release --target riscv32imc-unknown-none-elf --features trace -- -D warnings
	CPU_USAGE_CORES=2 $(CARGO) clippy --release --target riscv32imac-unknown-none-elf --target-dir target/smp -- -D warnings
	@# Several cores on Cortex-M0+ (the RP2040's: the README's Pico recipe).
	CPU_USAGE_CORES=2 $(CARGO) clippy --release --target thumbv6m-none-eabi --target-dir target/smp -- -D warnings
	scripts/check-no-panic.sh $(LIB_CM3) $(BUILD)/no-panic/exports.elf include/freertos_cpu_usage.h include/freertos_cpu_usage_hooks.h
	scripts/check-no-panic.sh $(LIB_RV32) $(BUILD)/no-panic/exports-rv32.elf include/freertos_cpu_usage.h include/freertos_cpu_usage_hooks.h
	@# The build for two cores (the SMP boards' archive, and its header).
	scripts/check-no-panic.sh $(call RUST_LIB_CORES,riscv32imac-unknown-none-elf,2) $(BUILD)/no-panic/exports-rv32-cores2.elf \
		$(call RUST_INC_CORES,2)/freertos_cpu_usage.h $(call RUST_INC_CORES,2)/freertos_cpu_usage_hooks.h
	@# Cortex-M0 (microbit's archive): no CLZ or divide instruction, so the compiler
	@# runtime's calls must not bring panic paths with them either.
	GCC_ARCH="$(microbit_ARCH)" scripts/check-no-panic.sh $(call RUST_LIB,thumbv6m-none-eabi) \
		$(BUILD)/no-panic/exports-cm0.elf include/freertos_cpu_usage.h include/freertos_cpu_usage_hooks.h
	scripts/footprint.sh check $(BUILD)/mps2-an385/demo-notrace.elf $(BUILD)/mps2-an385/demo-nolib.elf $(FOOTPRINT)
	@# The hot path's budgets on the committed figures, which must be of these sources.
	@$(MAKE) --no-print-directory bench-check-hot

soak: setup
	CPU_USAGE_SOAK_CYCLES=100000 $(CARGO) test -p freertos-cpu-usage-tests --test soak

fuzz: setup
	scripts/fuzz.sh

# Miri needs a nightly toolchain with its component; both come from rustup. The
# model-based, reference-model, long-run, window-wrap and random-report tests are left
# out: they run thousands of sequences, which takes hours under Miri.
miri:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal || \
		{ echo "make miri: cannot install a nightly toolchain with rustup" >&2; exit 1; }
	@rustup component add --toolchain nightly miri || \
		{ echo "make miri: cannot add the miri component to the nightly toolchain" >&2; exit 1; }
	MIRIFLAGS=-Zmiri-disable-isolation $(CARGO) +nightly miri test --lib --target-dir target/miri -- \
		--skip model_tests --skip long_run_tests --skip reference_model --skip window_numbers_wrap \
		--skip random_reports_add_up

clean:
	$(CARGO) clean
	rm -rf $(BUILD)
