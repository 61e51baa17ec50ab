# THP NUMA placement: the alloc_pages_multi_order() series and its test bed.
# Everything built lives in $(CACHE), never in this repository.

CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/thp-numa
export CACHE

FLAVOUR ?= patched
TREE ?= 6.12
export TREE
# the staged nodestate.ko of FLAVOUR on TREE (tools/stage.sh)
MODDIR = $(if $(filter 6.12,$(TREE)),$(FLAVOUR),$(TREE)-$(FLAVOUR))
TOPO ?= epyc4
MODE ?=
APPEND ?=
ACCEL ?= tcg
T ?= thp_scenarios

.PHONY: help check bench results kernel baseline debug rootfs stage boot test dry-run \
	deb host-check host-bench series-check series-build clean-cache

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## check         the whole test suite; ends in "N passed, N failed, N skipped" (FRESH=1: no reused runs)
check:
	@tools/check.sh

## bench         build, boot the default topology, print the tables (QUICK=1, COST=file, FILLS=N: storm fills per mode, 4)
bench:
	@tools/bench.sh $(if $(COST),--cost $(COST)) $(if $(QUICK),--quick) $(if $(FILLS),--fills $(FILLS))

## results       rewrite docs/results.md's tables from the recorded make check runs (and the newest make bench report)
results:
	@tools/results.sh

## kernel        build one kernel flavour (FLAVOUR=patched|baseline|debug|nodrain, TREE=6.12|7.3)
kernel:
	@tools/kernel.sh $(FLAVOUR)

## baseline      build the unpatched kernel, for A/B
baseline:
	@tools/kernel.sh baseline

## debug         build the patched kernel with DEBUG_VM, lockdep and KASAN
debug:
	@tools/kernel.sh debug

## rootfs        build the Debian guest image
rootfs:
	@rootfs/build.sh

## stage         build the guest test programs and the nodestate module
stage:
	@tools/stage.sh $(FLAVOUR)

## boot          root shell in a guest (FLAVOUR, TOPO, MODE, APPEND, ACCEL)
boot: rootfs kernel stage
	@tools/run-guest --interactive --kernel $(FLAVOUR) --topo $(TOPO) --accel $(ACCEL) \
		$(if $(MODE),--mode $(MODE)) $(if $(APPEND),--append "$(APPEND)")

## test          run one guest test: make test T="thp_scenarios -m guest"
test: rootfs kernel stage
	@tools/run-guest --kernel $(FLAVOUR) --topo $(TOPO) --accel $(ACCEL) \
		$(if $(MODE),--mode $(MODE)) $(if $(APPEND),--append "$(APPEND)") -- \
		"insmod /mnt/thp/mod/$(MODDIR)/nodestate.ko; run-tests.sh '$(T)'"

## dry-run       print the QEMU command line for FLAVOUR and TOPO
dry-run:
	@tools/run-guest --dry-run --kernel $(FLAVOUR) --topo $(TOPO) --accel $(ACCEL) \
		$(if $(MODE),--mode $(MODE)) -- true

## deb           Debian packages of a kernel (bindeb-pkg) to install on a real machine: FLAVOUR=patched|baseline|debug, TREE=6.12|7.3, CONFIG=distro (default; DEB_CONFIG=file, LSMOD=file: only the modules a test machine's lsmod lists) or guest
deb:
	@tools/deb.sh --config $(or $(CONFIG),distro) $(FLAVOUR)

## host-check    the suite on this machine, booted into a patched kernel on real NUMA hardware; refuses without HOST_ARGS=--yes-this-machine (and --unpatched, --module nodestate.ko, --quick, --fills N, --out DIR: tools/host.sh)
host-check:
	@tools/host.sh check $(HOST_ARGS)

## host-bench    numa-lat's per-distance table, placement, fault cost and the storm on this machine, and the report in results/host-DATE (HOST_ARGS as for host-check, and --compare DIR)
host-bench:
	@tools/host.sh bench $(HOST_ARGS)

## series-check  patches apply (git am, patch -p1) and pass checkpatch --strict (TREE=7.3: the 7.3 series)
series-check:
	@tools/series.sh check

## series-build  build after each patch, and with NUMA=n and THP=n (STEPS=, TARGETS=)
series-build:
	@tools/series.sh build-each

## clean-cache   remove $(CACHE) (kernel trees, builds, ccache, rootfs)
clean-cache:
	rm -rf "$(CACHE)"
