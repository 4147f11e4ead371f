# The host viewer, cpu-usage-top (top/): built with cargo, run against the POSIX
# simulator (make top) or the QEMU demo over TCP (make top-qemu). Included by the
# Makefile at the root.
#
#   make top          the simulator with the viewer on this terminal
#   make top-qemu     the mps2-an385 demo in QEMU, its UART on TCP, the viewer on it
#   make top-install  cargo install the viewer (into ~/.cargo/bin, or CARGO_INSTALL_ROOT)
#
# TOP_ARGS adds options (e.g. TOP_ARGS="--record run.jsonl --plot run.png");
# TOP_LOAD_LIMIT sets the load highlighted (default 90, the demo's: below).
#
# The viewer is built in cargo's dev profile, the one `make test` builds it in: `make
# test` runs TOP_BUILD too (test-build), so that `make top` starts at once after it,
# where a release build of the viewer's dependencies would take minutes more there.
# (The viewer redraws once a window: it needs no optimizer. `make top-install` builds
# the release one.)

TOP_BUILD = $(CARGO) build -p cpu-usage-top
TOP := target/debug/cpu-usage-top
TOP_QEMU_PORT ?= 5555
TOP_ARGS ?=
# The load these targets highlight: the demo's, not the viewer's default. The demo's
# workloads are set to 10, 25 and 40% and churn and the shell add theirs, about 82% in
# all: the viewer's default, 80% (the headroom rule, right for a firmware that gives no
# load watchdog of its own), would show the demo's normal load red all the time. Above
# 90% the demo is loaded past its settings (`load work40 60`), or a starved simulator
# reads high (its note says so).
TOP_LOAD_LIMIT ?= 90

.PHONY: top-build top top-qemu top-install

top-build:
	$(TOP_BUILD)

top: setup
	@$(MAKE) --no-print-directory sim top-build
	$(TOP) --exec $(BUILD)/posix/freertos-sim --load-limit $(TOP_LOAD_LIMIT) $(TOP_ARGS)

# QEMU listens on the port (wait=off: the demo boots at once, and the viewer may
# disconnect and connect again); it ends with the viewer.
top-qemu: setup
	@$(MAKE) --no-print-directory $(BUILD)/mps2-an385/demo.elf top-build
	@$(MPS2_QEMU) -serial tcp:127.0.0.1:$(TOP_QEMU_PORT),server=on,wait=off $(MPS2_SEMIHOSTING) \
		-kernel $(BUILD)/mps2-an385/demo.elf & qemu=$$!; \
	trap 'kill $$qemu 2>/dev/null' EXIT INT TERM; \
	$(TOP) --tcp 127.0.0.1:$(TOP_QEMU_PORT) --load-limit $(TOP_LOAD_LIMIT) $(TOP_ARGS)

top-install:
	$(CARGO) install --locked --path top
