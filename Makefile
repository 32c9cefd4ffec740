# sqlgw Makefile. Every check CI runs is a target here, and each check that
# fixes something (gofmt, go mod tidy) runs the fixer and fails on a diff, so
# the tree and the checks cannot drift apart (the pebble Makefile's rule).
#
# System packages are NOT installed by make (README.md names them and .ci/run
# installs them): libicu-dev (cgo regex), mariadb-client (CLI suite), and for
# `make bench` also sysbench and mariadb-server. Go modules and Go tools are
# fetched by the targets themselves.

SHELL := /bin/bash

GO ?= go

# Build configuration, set in this one place.
#
# Default: cgo + ICU (Debian libicu-dev). go-mysql-server then evaluates
# REGEXP / REGEXP_LIKE / REGEXP_REPLACE with ICU, which is what MySQL 8 uses,
# so regular expressions behave like MySQL's. `make TAGS=gms_pure_go
# CGO_ENABLED=0 build` builds without a C toolchain or ICU, with Go's regexp
# package instead (RE2 syntax: no backreferences, some MySQL patterns differ).
TAGS ?=
CGO_ENABLED ?= 1
export CGO_ENABLED

GOTAGS := $(if $(strip $(TAGS)),-tags '$(TAGS)')
# Tags for the go-mysql-server enginetest harness (sqlgw/enginetest).
ENGINETEST_TAGS := $(strip $(TAGS) enginetest)

PKG ?= ./...
TESTS ?= .
TESTFLAGS ?=
BENCHTIME ?= 200ms
BENCH ?= .

# Where `make run` serves: the embedded Pebble store in ./data.
LISTEN ?= 127.0.0.1:3306
STORE ?= pebble:./data

# Project-local tools, pinned.
TOOLS_BIN := $(CURDIR)/.tools/bin
STATICCHECK_VERSION := v0.7.0
STATICCHECK := $(TOOLS_BIN)/staticcheck-$(STATICCHECK_VERSION)

BIN := bin/sqlgw

.PHONY: all
all: build

.PHONY: help
help:
	@echo "make run             build bin/sqlgw and serve on 127.0.0.1:3306, data in ./data"
	@echo "make build           build bin/sqlgw"
	@echo "make azurite         run Azurite on 127.0.0.1:10002 (for STORE=azure:UseDevelopmentStorage=true)"
	@echo "make check           format-check + mod-tidy-check + lint + layering (CI's static gates)"
	@echo "make test            unit tests + mysql CLI suite + enginetest suite + compat clients"
	@echo "make unittest        go test ./..."
	@echo "make clitest         testdata/cli/*.sql through the mariadb CLI against sqlgw"
	@echo "make clitest-rewrite regenerate testdata/cli/*.expected from a local MariaDB"
	@echo "make enginetest      go-mysql-server's enginetest suites on sqlgw's storage"
	@echo "make compat          real client libraries and ORMs against sqlgw (scripts/compat)"
	@echo "make testrace        go test -race ./..."
	@echo "make crashtest       SIGKILL + duplicate-race tests of secondary indexes (pebble, Azurite)"
	@echo "make soak            minutes of mixed load with floods, kills, oversize packets and a stalled store"
	@echo "make txntest         long bank runs (cross-partition transactions, SIGKILLs, two gateways)"
	@echo "make bench           Go benchmarks + sysbench against sqlgw and MariaDB"
	@echo "make sysbench-ab     sysbench interleaved: MariaDB, BASE=bin and this build, ROUNDS rounds"
	@echo "make indexbench      the secondary-index benchmarks of docs/benchmarks.md"
	@echo "make profile         CPU profile of sqlgw under sysbench oltp_point_select (PROFILE=file)"
	@echo "make lint            go vet + staticcheck $(STATICCHECK_VERSION)"
	@echo "make layering        fail if a package imports one its layer must not (docs/architecture.md)"
	@echo "make format-check    fail if gofmt would change a file"
	@echo "make mod-tidy-check  fail if go mod tidy would change go.mod/go.sum"

# ---------------------------------------------------------------------------
# Build and run

.PHONY: build
build:
	$(GO) build $(GOTAGS) -o $(BIN) ./cmd/sqlgw

.PHONY: run
run: build
	./$(BIN) serve --listen $(LISTEN) --store $(STORE)

# Azurite, the Azure Storage emulator (version pinned by tools/azurite), in the
# foreground on 127.0.0.1:10002 with in-memory persistence; then
# `make run STORE=azure:UseDevelopmentStorage=true` in another terminal.
AZURITE_DIR := .tools/azurite-cli
.PHONY: azurite
azurite:
	@mkdir -p $(AZURITE_DIR)
	@if ! cmp -s tools/azurite/package-lock.json $(AZURITE_DIR)/package-lock.json || \
	    [ ! -x $(AZURITE_DIR)/node_modules/.bin/azurite-table ]; then \
		cp tools/azurite/package.json tools/azurite/package-lock.json $(AZURITE_DIR)/ && \
		cd $(AZURITE_DIR) && npm ci --no-audit --no-fund --loglevel=error; \
	fi
	$(AZURITE_DIR)/node_modules/.bin/azurite-table --tableHost 127.0.0.1 --tablePort 10002 \
		--inMemoryPersistence --disableTelemetry --skipApiVersionCheck

# ---------------------------------------------------------------------------
# Tests. `make test` runs everything README.md promises; each part is its own
# target so CI output shows which part failed.

.PHONY: test
TEST_PARTS := unittest clitest enginetest compat soak
# Every part runs even when an earlier one fails, each timed, with a summary.
test:
	@MAKE="$(MAKE)" scripts/run-parts.sh $(TEST_PARTS)

# The static gates CI runs before `make test` (.ci/run).
CHECK_PARTS := format-check mod-tidy-check lint layering
.PHONY: check
check:
	@MAKE="$(MAKE)" scripts/run-parts.sh $(CHECK_PARTS)

.PHONY: unittest
# go test ./... with the long end-to-end tests too (SQLGW_LONG=1, sqlgw/sqltest
# Long: the store crashed at every request of a commit, Azurite filled past
# several pages), which a plain go test leaves out; with them the sqlgw
# package takes 15-20 minutes on a quiet 2-core machine, beyond go test's
# default timeout. The timeout is a guard against a hang, not a speed limit:
# at load 12-24 (a shared machine) the package took over 30 minutes.
unittest:
	SQLGW_LONG=1 $(GO) test $(GOTAGS) -count=1 -timeout 50m $(TESTFLAGS) -run '$(TESTS)' $(PKG)

.PHONY: testrace
testrace:
	$(GO) test $(GOTAGS) -race -count=1 -timeout 60m $(TESTFLAGS) -run '$(TESTS)' $(PKG)

# The SIGKILL test of secondary indexes, the SIGKILL during a concurrent
# indexed insert load (Pebble: every acknowledged row and its index entries
# survive) and the concurrent duplicate races, against the real binary on
# Pebble and on Azurite (about 30 s each). They
# are part of unittest too (go test ./cmd/sqlgw); this runs them alone, verbose.
.PHONY: crashtest
crashtest:
	$(GO) test $(GOTAGS) -count=1 -v $(TESTFLAGS) -run 'TestIndexCrashSIGKILL|TestConcurrentDuplicates|TestInsertLoadSIGKILL' ./cmd/sqlgw

# Hardening soak (about 5 minutes): sqlgw/soak_test.go's mixed workload
# with idle floods, oversize packets, clients killed mid-statement and the
# store stalled for 30 s (RSS bound, every acknowledged row exactly once,
# alive at the end); 32 x 200 contended autocommit increments on Pebble
# and Azurite; keyless tables past three pages on Azurite; ambiguous
# writes; descriptor exhaustion and the peak RSS of large statements.
SOAK_DURATION ?= 3m
.PHONY: soak
soak:
	SQLGW_SOAK=1 SQLGW_SOAK_DURATION=$(SOAK_DURATION) $(GO) test $(GOTAGS) -count=1 -timeout 30m -v $(TESTFLAGS) \
		-run 'TestSoak|TestAutocommitContention|TestKeylessTablePastPages|TestAmbiguousWriteOutcome' ./sqlgw
	$(GO) test $(GOTAGS) -count=1 -timeout 10m -v $(TESTFLAGS) \
		-run 'TestServeSurvivesDescriptorExhaustion|TestLargeStatementMemory|TestRefusedStatementMemory' ./cmd/sqlgw
# The bank tests of cross-partition transactions (catalog/txn): their short
# versions run in unittest; this runs them long, verbose (about 10 minutes):
# concurrent transfers for BANK_DURATION on both backends, BANK_KILLS
# SIGKILLs per backend, two gateways on one Azurite account.
BANK_DURATION ?= 60s
BANK_KILLS ?= 10
.PHONY: txntest
txntest:
	SQLGW_BANK_DURATION=$(BANK_DURATION) SQLGW_BANK_KILLS=$(BANK_KILLS) $(GO) test $(GOTAGS) -count=1 -v -timeout 60m $(TESTFLAGS) \
		-run 'TestBank|TestCrashAtEveryRequest|TestRequestsPerCommit|TestCommitConflict' ./catalog/txn ./sqlgw ./cmd/sqlgw

.PHONY: clitest
clitest: build
	./scripts/cli-test.sh --sqlgw $(BIN)

.PHONY: clitest-rewrite
clitest-rewrite:
	./scripts/cli-test.sh --rewrite

# Real clients (PyMySQL, SQLAlchemy, Django, mysql2, Sequelize, JDBC, GORM, ODBC,
# the CLI and mariadb-dump) against a fresh server each: scripts/compat. It
# installs its own Debian packages and pinned npm/Go/Java clients.
.PHONY: compat
compat: build
	COMPAT_SQLGW_BIN=$(CURDIR)/$(BIN) ./scripts/compat-gate.sh --known-failures testdata/compat/known_failures.tsv

.PHONY: enginetest
enginetest:
	$(GO) test -tags '$(ENGINETEST_TAGS)' -count=1 -timeout 30m $(TESTFLAGS) ./sqlgw/enginetest/

# ---------------------------------------------------------------------------
# Benchmarks

.PHONY: bench
bench: gobench sysbench

.PHONY: gobench
gobench:
	$(GO) test $(GOTAGS) -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) -benchmem $(PKG)

# docs/benchmarks.md's secondary-index figures: requests and time per write
# with 0, 1 and 3 indexes, and indexed lookups vs scans at 100,000 rows (the
# load takes about 1.5 min).
.PHONY: indexbench
indexbench:
	$(GO) test $(GOTAGS) -run '^$$' -bench 'IndexWrites' -benchtime 1000x -count 3 ./cmd/sqlgw
	$(GO) test $(GOTAGS) -run '^$$' -bench 'IndexLookup100k' -benchtime 10x -timeout 30m -v ./cmd/sqlgw

.PHONY: sysbench
sysbench: build
	./bench/sysbench.sh --sqlgw $(BIN)

# The issue 13 workloads interleaved round by round against MariaDB, this
# build and (BASE=path, optional) a reference sqlgw binary, so that the
# machine's drift hits every server alike (bench/sysbench-ab.sh).
ROUNDS ?= 3
.PHONY: sysbench-ab
sysbench-ab: build
	./bench/sysbench-ab.sh --sqlgw $(BIN) $(if $(BASE),--compare $(BASE)) --rounds $(ROUNDS) --time 10

# A CPU profile of sqlgw under sysbench's oltp_point_select (100,000 rows,
# 4 threads, 20 s; sqlgw only, no MariaDB), through serve --debug-listen:
# `go tool pprof -top $(PROFILE)` reads it. PROFILE_TEST picks another
# workload (e.g. oltp_read_only).
PROFILE ?= point_select.prof
PROFILE_TEST ?= oltp_point_select
.PHONY: profile
profile: build
	./bench/sysbench.sh --sqlgw $(BIN) --only sqlgw --time 20 --tests '$(PROFILE_TEST)' --profile $(PROFILE)
	$(GO) tool pprof -top -nodecount 40 $(BIN) $(PROFILE)

# ---------------------------------------------------------------------------
# Static checks

.PHONY: lint
lint: vet staticcheck

.PHONY: vet
vet:
	$(GO) vet $(GOTAGS) $(PKG)
	$(GO) vet -tags '$(ENGINETEST_TAGS)' ./sqlgw/enginetest/

$(STATICCHECK):
	mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(TOOLS_BIN)/staticcheck $@

.PHONY: staticcheck
staticcheck: $(STATICCHECK)
	$(STATICCHECK) $(GOTAGS) $(PKG)
	$(STATICCHECK) -tags '$(ENGINETEST_TAGS)' ./sqlgw/enginetest/

# Packages may import only what docs/architecture.md's layer table allows
# (transitively); the rules live in the script.
.PHONY: layering
layering:
	GO=$(GO) scripts/layering.sh

.PHONY: format-check
format-check:
	@files=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then \
		echo "gofmt would change these files (run gofmt -w):"; echo "$$files"; exit 1; \
	fi

.PHONY: mod-tidy-check
mod-tidy-check:
	$(GO) mod tidy -diff

.PHONY: clean
clean:
	rm -rf bin
