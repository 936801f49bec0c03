# fsmove — see README.md. Targets:
#   make demo           set up Docker and the image, then run fsmove on a bundled example module
#   make test           set up, then vet and run every test (end-to-end included) and short fuzz runs
#   make build          build bin/fsmove, its version from git describe
#   make install        build, then install fsmove to $(PREFIX)/bin (default /usr/local)
#   make bench-analyze  generate a 1 GB trace and print analysis MB/s, peak RSS and the ratio to wc -l
#                       (ORIGINAL=BIN: also the medians and ratios against the original FSMoVe)
#   make bench-debian   run every Debian puppet-module-* package (resumable) and refresh bench/results/
#   make bench-tracers  apply a fixture untraced and under each tracer, alternating; print median slowdowns
#   make bench-faults   a corpus benched under random SIGKILLs and --resume must end as an undisturbed one
#   make bench-recall   remove each relationship a module writes, one at a time, and count the planted faults found
#   make bench-fix      run each module of a corpus, then fsmove fix --write --verify: count the findings its edits remove
#   make test-load      the end-to-end tests with a CPU hog on every core beside them, LOAD_RUNS times
#   make pgo TRACE=DIR  refresh cmd/fsmove/default.pgo from analyses of a saved run (trace.log, catalog.json)
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
FUZZTIME ?= 10s
# Minimizing a new interesting input takes 60 s by default: longer than a
# short run, which then fails with "context deadline exceeded".
FUZZMINIMIZETIME ?= 2s
BENCH_SIZE ?= 1G
BENCH_DIR ?= /tmp/fsmove-bench
PREFIX ?= /usr/local
# fsmove version prints this; without it (go build, go install) fsmove
# reads its version from the build information Go stamps in.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := $(if $(VERSION),-X main.version=$(VERSION))

.PHONY: build install setup demo test test-load unit fuzz bench bench-analyze bench-debian bench-tracers bench-faults bench-recall bench-fix pgo clean

# Static (no cgo): the session's reaper runs this binary in a container of
# the run's image, whose C library it must not depend on (docs/DESIGN.md,
# "Nothing left running").
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -ldflags '$(LDFLAGS)' -o bin/fsmove ./cmd/fsmove

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 bin/fsmove $(DESTDIR)$(PREFIX)/bin/fsmove

setup:
	bash .ci/setup

demo:
	bash .ci/setup demo
	bin/fsmove run testdata/modules/mor_exec_reads_file; test $$? -le 1

test: setup unit fuzz

unit:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 60m ./...

# A verdict must not depend on how busy the machine is: the end-to-end tests
# (LOAD_TESTS, a go test -run pattern) with a CPU hog on every core, LOAD_RUNS times.
LOAD_RUNS ?= 5
LOAD_TESTS ?= E2E
# The whole end-to-end set takes 36 minutes a run on an idle 2-core machine;
# the hogs take about half of the CPU, so a run needs more than the 60
# minutes of make unit's timeout.
LOAD_TIMEOUT ?= 150m
test-load: setup
	FSMOVE_E2E=1 .ci/load $(LOAD_RUNS) $(GO) test -count=1 -timeout $(LOAD_TIMEOUT) -run '$(LOAD_TESTS)' ./...

# Short, bounded runs of every fuzz target (go test -fuzz takes one target at
# a time), FUZZ_JOBS at once: each runs for FUZZTIME whatever the CPUs it
# gets, so two at a time take half the time on a 2-core machine.
FUZZ_JOBS ?= 2
FUZZ_TARGETS = \
	FuzzReader ./tracer/strace \
	FuzzRead ./catalog \
	FuzzLower ./fstrace \
	FuzzParse ./fstrace \
	FuzzInterp ./fstrace/interp \
	FuzzLoadWaivers ./detector \
	FuzzParseFilters ./detector \
	FuzzParsePackages ./detector \
	FuzzParseUnits ./detector \
	FuzzParseAccounts ./detector \
	FuzzParseSuppression ./detector \
	FuzzCommandPaths ./detector \
	FuzzParse ./cmd/fsmove/internal/project \
	FuzzMark ./puppet \
	FuzzSourceRef ./puppet \
	FuzzParseReport ./catalog \
	FuzzAugeasArgs ./catalog \
	FuzzParseMetadata ./puppet/module \
	FuzzParseFixtures ./puppet/module \
	FuzzParsePuppetfile ./puppet/module \
	FuzzParseDebIndex ./puppet/module \
	FuzzModuleCopySkip ./puppet/runner \
	FuzzParseUnmetConditions ./puppet/runner \
	FuzzMake ./puppet/fix
fuzz:
	printf '%s %s\n' $(FUZZ_TARGETS) | FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) xargs -P $(FUZZ_JOBS) -n 2 .ci/fuzz

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# With ORIGINAL=PATH (the binary of the original OCaml FSMoVe,
# AUEB-BALab/fsmove, built from its sources), bench-analyze also
# times the original and fsmove (one core, two cores) on the same traces in
# BENCH_ROUNDS alternating rounds and prints the medians and the ratios
# (bench/vs-original). BENCH_VS_TRACES holds pairs TRACE CATALOG; by default
# a generated trace of BENCH_VS_SIZE (the original reads ~10 MB/s).
ORIGINAL ?=
BENCH_ROUNDS ?= 5
BENCH_VS_SIZE ?= 100M
BENCH_VS_TRACES ?= $(BENCH_DIR)/trace-$(BENCH_VS_SIZE).log $(BENCH_DIR)/catalog-$(BENCH_VS_SIZE).json

bench-analyze: build
	mkdir -p $(BENCH_DIR)
	test -s $(BENCH_DIR)/trace-$(BENCH_SIZE).log || $(GO) run ./cmd/tracegen -size $(BENCH_SIZE) -o $(BENCH_DIR)/trace-$(BENCH_SIZE).log -catalog $(BENCH_DIR)/catalog-$(BENCH_SIZE).json
	bin/fsmove analyze --stats --format json -o /dev/null $(BENCH_DIR)/trace-$(BENCH_SIZE).log $(BENCH_DIR)/catalog-$(BENCH_SIZE).json; test $$? -le 1
	bench/vs-wc bin/fsmove $(BENCH_ROUNDS) $(BENCH_DIR)/trace-$(BENCH_SIZE).log $(BENCH_DIR)/catalog-$(BENCH_SIZE).json
	if [ -n "$(ORIGINAL)" ]; then \
		test -s $(BENCH_DIR)/trace-$(BENCH_VS_SIZE).log || $(GO) run ./cmd/tracegen -size $(BENCH_VS_SIZE) -o $(BENCH_DIR)/trace-$(BENCH_VS_SIZE).log -catalog $(BENCH_DIR)/catalog-$(BENCH_VS_SIZE).json || exit 1; \
		bench/vs-original $(ORIGINAL) bin/fsmove $(BENCH_ROUNDS) $(BENCH_VS_TRACES); \
	fi

# The profile go build uses to optimise fsmove (profile-guided optimisation:
# hot calls inlined): CPU profiles of 8 analyses of a real run on two cores,
# merged.
pgo: build
	test -n "$(TRACE)" || { echo "make pgo TRACE=DIR: DIR holds trace.log and catalog.json of a run"; exit 2; }
	rm -rf $(BENCH_DIR)/pgo && mkdir -p $(BENCH_DIR)/pgo
	for i in 1 2 3 4 5 6 7 8; do GOMAXPROCS=2 bin/fsmove analyze --cpuprofile $(BENCH_DIR)/pgo/$$i.prof --format json -o /dev/null $(TRACE)/trace.log $(TRACE)/catalog.json; test $$? -le 1 || exit 1; done
	$(GO) tool pprof -proto $(BENCH_DIR)/pgo/*.prof > cmd/fsmove/default.pgo

# The Debian corpus, with bench/corpus/debian-params.txt laid over it and
# the untraced apply of every cleanly applied module (the slowdown):
# resumable (a second run only redoes what is missing or whose parameters
# changed), so an interrupted run is continued by running the target again.
# BENCH_DEBIAN_FLAGS adds flags (--tracer strace --trusted, --workers 1, ...).
BENCH_DEBIAN_OUT ?= /tmp/fsmove-bench-debian
BENCH_DEBIAN_FLAGS ?=
bench-debian: setup
	bin/fsmove bench --debian --resume --untraced --workers 2 --timeout 20m --quiet --out $(BENCH_DEBIAN_OUT) $(BENCH_DEBIAN_FLAGS)
	cp $(BENCH_DEBIAN_OUT)/corpus.txt bench/results/debian-bookworm-corpus.txt
	cp $(BENCH_DEBIAN_OUT)/results.csv bench/results/debian-bookworm.csv
	cp $(BENCH_DEBIAN_OUT)/findings.csv bench/results/debian-bookworm-findings.csv
	for f in $(BENCH_DEBIAN_OUT)/fig-*.svg; do cp $$f bench/results/debian-bookworm-$$(basename $$f); done

# Tracer overhead on a real puppet apply in the image: BENCH_RUNS applies of
# each variant (untraced, strace --seccomp-bpf, fsmove trace), rotated per
# round; prints each tracer's median slowdown against untraced.
# BENCH_TRACERS=ebpf (or a comma list) times only those tracers;
# BENCH_SUITE=trixie applies in that suite's image.
BENCH_RUNS ?= 5
BENCH_TRACERS ?=
BENCH_SUITE ?= bookworm
bench-tracers: setup
	FSMOVE_BENCH_RUNS=$(BENCH_RUNS) FSMOVE_BENCH_TRACERS=$(BENCH_TRACERS) FSMOVE_BENCH_SUITE=$(BENCH_SUITE) $(GO) test -run='^$$' -bench='^BenchmarkTracerOverhead$$' -benchtime=1x -timeout 2h ./tracer/ptrace

# Crash soak (bench/faults): FAULT_CORPUS benched undisturbed, then under
# FAULT_KILLS random SIGKILLs each followed by --resume; the tables must agree
# and no container of the killed benches be left. By default the bundled
# fixtures, untraced applies included.
FAULT_CORPUS ?= testdata/corpus/fixtures.txt
FAULT_KILLS ?= 5
FAULT_FLAGS ?= --workers 2 --untraced --timeout 10m
bench-faults: setup
	bench/faults bin/fsmove $(FAULT_CORPUS) $(FAULT_KILLS) $(FAULT_FLAGS)

# Planted-fault suite (bench/recall): for each module of RECALL_CORPUS,
# remove each relationship it writes between two resources it declares, one
# at a time (and weaken each notification to an ordering), run fsmove on the mutant and count found / planted by kind and
# the harmless removals reported; the table goes to RECALL_RESULTS (.csv and
# .md). By default the Debian modules that apply cleanly within 12 s traced
# (bench/results/debian-bookworm-recall-corpus.txt), at most 5 relationships
# (mutants) a module (RECALL_FLAGS=-max 0: all); RECALL_CORPUS=
# testdata/corpus/recall.txt RECALL_RESULTS=bench/results/fixtures-recall.csv
# for the bundled fixtures.
RECALL_CORPUS ?= bench/results/debian-bookworm-recall-corpus.txt
RECALL_RESULTS ?= bench/results/debian-bookworm-recall.csv
RECALL_OUT ?= /tmp/fsmove-recall
RECALL_FLAGS ?= -max 5
bench-recall: setup
	$(GO) run ./bench/recall -fsmove bin/fsmove -out $(RECALL_OUT) -results $(RECALL_RESULTS) $(RECALL_FLAGS) $(RECALL_CORPUS)

# fsmove fix over a corpus (bench/fixrate): run each module of FIX_CORPUS,
# then fsmove fix --write --verify on its run; a row per finding (fixed,
# not fixed, no edit, withdrawn, new) in FIX_RESULTS (.csv and .md). By
# default the Debian modules whose run shows an MOR or MN.
FIX_CORPUS ?= bench/results/debian-bookworm-fix-corpus.txt
FIX_RESULTS ?= bench/results/debian-bookworm-fix.csv
FIX_OUT ?= /tmp/fsmove-fixrate
bench-fix: setup
	$(GO) run ./bench/fixrate -fsmove bin/fsmove -out $(FIX_OUT) -results $(FIX_RESULTS) $(FIX_CORPUS)

clean:
	rm -rf bin
