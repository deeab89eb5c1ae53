# kubetenant: tenant-operator and pinbot.
# `make help` lists the targets. Tools are built from pinned Go modules into
# bin/; nothing but Go and git is assumed to be installed.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT    := $(CURDIR)
BIN     := $(ROOT)/bin
# The root module holds internal/ and pinbot; the operator is its own module
# (ADR 0120).
MODULES := . operator

# Versions of the control plane used by tests and `make run`.
K8S_VERSION  := v1.37.2
ETCD_VERSION := v3.6.8
# Pinned tool versions.
CONTROLLER_GEN_VERSION := v0.23.0
HELM_VERSION           := v4.3.2
STATICCHECK_VERSION    := v0.8.2
ACTIONLINT_VERSION     := v1.7.12
CYCLONEDX_GOMOD_VERSION := v1.10.0

# Tool binaries carry their version in the name, so a version bump rebuilds.
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
HELM           := $(BIN)/helm-$(HELM_VERSION)
STATICCHECK    := $(BIN)/staticcheck-$(STATICCHECK_VERSION)
ACTIONLINT     := $(BIN)/actionlint-$(ACTIONLINT_VERSION)
CYCLONEDX_GOMOD := $(BIN)/cyclonedx-gomod-$(CYCLONEDX_GOMOD_VERSION)

# KUBEBUILDER_ASSETS points envtest at kube-apiserver, etcd, kubectl and
# kube-controller-manager. A value the user already set is honoured and
# nothing is built. Otherwise they are built into bin/k8s, and rebuilt only
# when K8S_VERSION or ETCD_VERSION changes: the stamp's name carries the
# versions (file times are useless after a git checkout or a CI cache restore).
ifeq ($(origin KUBEBUILDER_ASSETS),undefined)
KUBEBUILDER_ASSETS := $(BIN)/k8s
K8S_ASSETS_STAMP   := $(KUBEBUILDER_ASSETS)/.built-$(K8S_VERSION)-etcd-$(ETCD_VERSION)
endif
# Stamp the release into the binaries, as Kubernetes' own build does, so that
# /version, kubectl version and helm see v1.37.2 rather than v0.0.0-master.
K8S_VERSION_PKGS := k8s.io/component-base/version k8s.io/client-go/pkg/version
K8S_LDFLAGS := -s -w $(foreach p,$(K8S_VERSION_PKGS),-X $(p).gitVersion=$(K8S_VERSION) \
	-X $(p).gitMajor=$(patsubst v%,%,$(word 1,$(subst ., ,$(K8S_VERSION)))) \
	-X $(p).gitMinor=$(word 2,$(subst ., ,$(K8S_VERSION))) -X $(p).gitTreeState=clean)
export KUBEBUILDER_ASSETS

# What a build says it is (ADR 0121): the release tag or `git describe`
# (matching only vX.Y.Z tags, not operator/vX.Y.Z), the commit and the
# commit's date. Never the build time: one commit builds the same bytes.
VERSION     ?= $(shell git describe --tags --match 'v[0-9]*' --always --dirty 2>/dev/null || echo '(devel)')
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null)
COMMIT_DATE ?= $(shell TZ=UTC0 git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
# SOURCE_DATE_EPOCH is the commit's time; images and archives carry it.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
version-ldflags = -X $(1).version=$(VERSION) -X $(1).commit=$(COMMIT) -X $(1).date=$(COMMIT_DATE)
# Static, path-free, stripped: the same flags for bin/, images and archives.
GO_BUILD = CGO_ENABLED=0 go build -trimpath
PINBOT_LDFLAGS   := -s -w $(call version-ldflags,github.com/kubetenant/kubetenant/internal/version)
OPERATOR_LDFLAGS := -s -w $(call version-ldflags,github.com/kubetenant/kubetenant/operator/internal/version)

GO_TEST_FLAGS ?= -race -count=1
# Extra flags of the operator part of `make bench`, e.g. --bench-gomemlimit=20MiB.
OPERATOR_BENCH_FLAGS ?=
BENCH_FLAGS   ?= -run='^$$' -bench=. -benchmem

# Container images (ADR 0122): built as OCI layouts by tools/images, no
# Docker daemon. The tag is the version: vX.Y.Z on a release tag, the
# `git describe` string otherwise; the charts default to v<appVersion>.
IMAGE_REGISTRY  ?= ghcr.io/kubetenant
IMAGE_NAMES     := tenant-operator pinbot
IMAGE_PLATFORMS := linux/amd64 linux/arm64
IMAGE_TAG       ?= $(VERSION)
IMAGES_DIR      ?= $(ROOT)/out/images
IMAGE_BIN_DIR   ?= $(ROOT)/out/image-bin
# Charts are released at the version of the tag without its v (ADR 0041).
CHART_VERSION   ?= $(patsubst v%,%,$(VERSION))
CHARTS_DIR      ?= $(ROOT)/out/charts

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} \
		/^[a-zA-Z0-9_-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Build

.PHONY: build
build: ## Build bin/tenant-operator and bin/pinbot.
	cd operator && $(GO_BUILD) -ldflags '$(OPERATOR_LDFLAGS)' -o $(BIN)/tenant-operator ./cmd/tenant-operator
	$(GO_BUILD) -ldflags '$(PINBOT_LDFLAGS)' -o $(BIN)/pinbot ./pinbot/cmd/pinbot

.PHONY: run
run: build test-assets ## Start a local control plane, the operator and sample tenants, and pinbot against the GitHub simulator (Ctrl-C stops all).
	go build -o $(BIN)/pinbot-demo ./pinbot/hack/demo
	@# pinbot's demo runs beside the cluster; a background job ignores
	@# Ctrl-C in a non-interactive shell, so the trap forwards it.
	$(BIN)/pinbot-demo --pinbot "$(BIN)/pinbot" & demo=$$!; \
	trap 'kill -TERM $$demo 2>/dev/null' INT TERM EXIT; \
	cd operator && go run ./hack/devcluster --assets "$(KUBEBUILDER_ASSETS)" --operator "$(BIN)/tenant-operator" \
		--crds config/crd/bases --samples config/samples --dir "$(ROOT)/out/run"; \
	status=$$?; kill -TERM $$demo 2>/dev/null; wait $$demo; exit $$status

# Static binaries of every image platform, with the same flags as `make
# build`; the image builder is a tool module outside go.work.
.PHONY: images
images: ## Build both images for linux/amd64 and linux/arm64 as OCI layouts in out/images, with SPDX SBOMs (no Docker daemon, offline).
	cd tools/images && GOWORK=off go build -o $(BIN)/images .
	@rm -rf $(IMAGES_DIR) && mkdir -p $(IMAGES_DIR)
	@for p in $(IMAGE_PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; d=$(IMAGE_BIN_DIR)/$${os}_$${arch}; \
		echo "==> building the $$p binaries into $$d"; \
		(cd operator && GOOS=$$os GOARCH=$$arch $(GO_BUILD) -ldflags '$(OPERATOR_LDFLAGS)' -o $$d/tenant-operator ./cmd/tenant-operator) && \
		GOOS=$$os GOARCH=$$arch $(GO_BUILD) -ldflags '$(PINBOT_LDFLAGS)' -o $$d/pinbot ./pinbot/cmd/pinbot || exit 1; \
	done
	@for n in $(IMAGE_NAMES); do \
		$(BIN)/images build --name $$n --repo $(IMAGE_REGISTRY)/$$n --tag $(IMAGE_TAG) \
			--version $(VERSION) --revision $(COMMIT) --created $(COMMIT_DATE) \
			$(foreach p,$(IMAGE_PLATFORMS),--binary $(p)=$(IMAGE_BIN_DIR)/$(subst /,_,$(p))/$$n) \
			--out $(IMAGES_DIR) || exit 1; \
	done

.PHONY: image-refs
image-refs: ## Print the image references a build of this commit publishes.
	@for n in $(IMAGE_NAMES); do echo "$(IMAGE_REGISTRY)/$$n:$(IMAGE_TAG)"; done

.PHONY: push-images
push-images: ## Push out/images to IMAGE_REGISTRY as IMAGE_TAG (credentials from the Docker config); prints the digests to sign.
	cd tools/images && GOWORK=off go build -o $(BIN)/images .
	@for n in $(IMAGE_NAMES); do \
		$(BIN)/images push --layout $(IMAGES_DIR)/$$n --ref $(IMAGE_REGISTRY)/$$n:$(IMAGE_TAG) || exit 1; \
	done

.PHONY: print-helm
print-helm: $(HELM) ## Print the path of the pinned helm binary (built when missing).
	@echo $(HELM)

.PHONY: charts-package
charts-package: $(HELM) ## Package both charts at CHART_VERSION (version = appVersion, ADR 0041) into out/charts.
	@mkdir -p $(CHARTS_DIR)
	@for c in $(IMAGE_NAMES); do \
		$(HELM) package charts/$$c --version $(CHART_VERSION) --app-version $(CHART_VERSION) -d $(CHARTS_DIR) >/dev/null || exit 1; \
		echo "$(CHARTS_DIR)/$$c-$(CHART_VERSION).tgz"; \
	done

# Release archives (ADR 0130): what .goreleaser.yaml publishes, made here
# offline: <name>_<X.Y.Z>_<os>_<arch>.tar.gz holding the binary, LICENSE and
# README.md; a CycloneDX SBOM of each binary (<archive>.sbom.json, from the
# module list in the binary); checksums.txt (sha256sum's format). Every
# entry carries the commit's time, owners are numeric, gzip stores no name
# or time: one commit, the same bytes.
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST_DIR          ?= $(ROOT)/out/dist
RELEASE_VERSION    = $(patsubst v%,%,$(VERSION))
.PHONY: release-snapshot
release-snapshot: $(CYCLONEDX_GOMOD) ## Build the release archives, SBOMs and checksums.txt into out/dist (offline; the release workflow's goreleaser publishes the same).
	@rm -rf $(DIST_DIR) && mkdir -p $(DIST_DIR)/build
	@for p in $(RELEASE_PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; \
		for n in $(IMAGE_NAMES); do d=$(DIST_DIR)/build/$${n}_$${os}_$${arch}; \
			echo "==> $$n $$p"; \
			if [ $$n = tenant-operator ]; then \
				(cd operator && GOOS=$$os GOARCH=$$arch $(GO_BUILD) -ldflags '$(OPERATOR_LDFLAGS)' -o $$d/$$n ./cmd/tenant-operator) || exit 1; \
			else GOOS=$$os GOARCH=$$arch $(GO_BUILD) -ldflags '$(PINBOT_LDFLAGS)' -o $$d/$$n ./pinbot/cmd/pinbot || exit 1; fi; \
			cp LICENSE README.md $$d/ && chmod 0644 $$d/LICENSE $$d/README.md && chmod 0755 $$d/$$n; \
			a=$${n}_$(RELEASE_VERSION)_$${os}_$${arch}.tar.gz; \
			tar --sort=name --mtime=@$(SOURCE_DATE_EPOCH) --owner=0 --group=0 --numeric-owner --format=gnu \
				-C $$d -cf - $$n LICENSE README.md | gzip -n -9 > $(DIST_DIR)/$$a || exit 1; \
			$(CYCLONEDX_GOMOD) bin -json -noserial -notimestamp -version $(VERSION) -output $(DIST_DIR)/$$a.sbom.json $$d/$$n || exit 1; \
		done; \
	done
	@cd $(DIST_DIR) && sha256sum *.tar.gz *.sbom.json > checksums.txt && rm -rf build
	@ls $(DIST_DIR)

##@ Test

.PHONY: test
test: test-tree test-assets test-go test-charts test-images test-release test-fuzz ## Run every test of every module (with -race), the chart tests, the image tests and a short fuzz of every parser.

# No build output in git (ADR 0240, ADR 0292): every tracked file outside a
# testdata/ folder is at most TREE_MAX_BYTES and not an executable binary
# (ELF, Mach-O, PE by their magic numbers). One perl pass over `git ls-files`
# (perl ships with git): well under a second.
TREE_MAX_BYTES ?= 1048576
define TREE_CHECK
chomp; my $$f = $$_;
next if $$f =~ m{(^|/)testdata/} || -l $$f || ! -f $$f;
my $$s = -s $$f;
if ($$s > $$ENV{TREE_MAX_BYTES}) { print "$$f: $$s bytes, over $$ENV{TREE_MAX_BYTES} (ADR 0240: large files stay out of git or under testdata/)\n"; $$bad++; }
open(my $$h, "<:raw", $$f) or die "$$f: $$!\n"; read($$h, my $$b, 4096); close $$h;
my $$m = substr($$b, 0, 4); my $$k;
if ($$m eq "\x7fELF") { $$k = "ELF" }
elsif (grep { $$m eq $$_ } ("\xfe\xed\xfa\xce", "\xfe\xed\xfa\xcf", "\xce\xfa\xed\xfe", "\xcf\xfa\xed\xfe", "\xca\xfe\xba\xbe")) { $$k = "Mach-O" }
elsif (substr($$b, 0, 2) eq "MZ" && length($$b) >= 64) { my $$o = unpack("V", substr($$b, 60, 4)); $$k = "PE" if $$o + 4 <= length($$b) && substr($$b, $$o, 4) eq "PE\0\0"; }
if ($$k) { print "$$f: an executable binary ($$k); build outputs stay out of git (ADR 0240)\n"; $$bad++; }
END { if ($$bad) { print "make test-tree: $$bad tracked file(s) refused\n"; exit 1 } }
endef
export TREE_CHECK TREE_MAX_BYTES
.PHONY: test-tree
test-tree: ## Fail if a tracked file outside testdata/ is over 1 MiB or an executable binary.
	@git ls-files -z | perl -0 -ne "$$TREE_CHECK"
	@echo "==> test-tree: $$(git ls-files | wc -l) tracked files, none over $(TREE_MAX_BYTES) bytes nor an executable outside testdata/"

# The release recipe for the linux platforms (the images' binaries, already
# built: darwin cross-builds would add minutes to every `make test` and use
# the same recipe), twice: the same checksums, archives that unpack to a
# binary that says its version, SBOMs that name the modules.
.PHONY: test-release
test-release: ## Make the linux release archives twice (identical), then check archives, checksums and SBOMs.
	@$(MAKE) -s release-snapshot RELEASE_PLATFORMS="linux/amd64 linux/arm64" DIST_DIR=$(ROOT)/out/dist-test >/dev/null
	@$(MAKE) -s release-snapshot RELEASE_PLATFORMS="linux/amd64 linux/arm64" DIST_DIR=$(ROOT)/out/dist-test-again >/dev/null
	@cmp $(ROOT)/out/dist-test/checksums.txt $(ROOT)/out/dist-test-again/checksums.txt || { echo "two release snapshots of one commit differ"; exit 1; }
	cd $(ROOT)/out/dist-test && sha256sum -c --quiet checksums.txt
	@for a in $(ROOT)/out/dist-test/*.tar.gz; do \
		n=$$(basename $$a | cut -d_ -f1); t=$$(mktemp -d); \
		test "$$(tar -tzf $$a | sort | tr '\n' ' ')" = "LICENSE README.md $$n " || { echo "$$a holds $$(tar -tzf $$a)"; exit 1; }; \
		case $$a in *linux_amd64*) tar -xzf $$a -C $$t $$n && $$t/$$n --version | grep -q "$(COMMIT)" || { echo "$$a: --version does not name $(COMMIT)"; exit 1; };; esac; \
		grep -q '"bomFormat": "CycloneDX"' $$a.sbom.json && grep -q 'pkg:golang/' $$a.sbom.json || { echo "$$a.sbom.json is not a CycloneDX SBOM of Go modules"; exit 1; }; \
		rm -rf $$t; \
	done
	@echo "==> release snapshot: $$(ls $(ROOT)/out/dist-test/*.tar.gz | wc -l) archives, identical twice, checksums verified"

# The images are built twice (the second time from scratch into another
# directory) and must have the same digests; then tools/images' tests read
# the layouts: user, entrypoint, labels, platforms, no shell, size, the
# amd64 binary's --version, and the charts' image against a tagged clone.
.PHONY: test-images
test-images: images $(HELM) ## Build the images twice (same digests), then test the layouts and the charts' image references.
	@$(MAKE) -s images IMAGES_DIR=$(ROOT)/out/images-again IMAGE_BIN_DIR=$(ROOT)/out/image-bin-again >/dev/null
	@for n in $(IMAGE_NAMES); do \
		a=$$(cat $(IMAGES_DIR)/$$n/index.json | sha256sum); b=$$(cat $(ROOT)/out/images-again/$$n/index.json | sha256sum); \
		if [ "$$a" != "$$b" ]; then echo "$$n: two builds of one commit differ"; diff $(IMAGES_DIR)/$$n/index.json $(ROOT)/out/images-again/$$n/index.json; exit 1; fi; \
		cmp $(IMAGES_DIR)/$$n.spdx.json $(ROOT)/out/images-again/$$n.spdx.json || { echo "$$n: two SBOMs of one commit differ"; exit 1; }; \
	done
	@echo "==> two builds of the images gave the same digests"
	cd tools/images && GOWORK=off IMAGES_DIR=$(IMAGES_DIR) IMAGE_COMMIT=$(COMMIT) IMAGE_VERSION=$(VERSION) HELM=$(HELM) REPO_ROOT=$(ROOT) \
		go test -count=1 ./...

# The chart tests (operator/test/charttest) run once, in test-charts.
.PHONY: test-go
test-go: test-assets build test-packages ## Run the Go tests of every module (the chart tests run in test-charts).
	@# pinbot's pod-source tests start this bare control plane: the root
	@# module cannot import the operator module's harness (ADR 0162).
	cd operator && go build -o $(BIN)/controlplane ./test/cmd/controlplane
	@for m in $(MODULES); do \
		echo "==> go test $$m"; \
		(cd $$m && TENANT_OPERATOR="$(BIN)/tenant-operator" PINBOT="$(BIN)/pinbot" CONTROLPLANE="$(BIN)/controlplane" \
			go test $(GO_TEST_FLAGS) $$(go list ./... | grep -v '/test/charttest$$')) || exit 1; \
	done

# Debian packages the tests need that no Go module provides: shellcheck (the
# verify-memory action's scripts, pinbot/test/action) and iproute2 (`ip`: the
# pod source's test hosts, pinbot/internal/memory/kubesample). Installed when missing
# (CI runs as root on Debian).
.PHONY: test-packages
test-packages: ## Install shellcheck and iproute2 (Debian packages) when missing.
	@missing=""; command -v shellcheck >/dev/null || missing="$$missing shellcheck"; \
	command -v ip >/dev/null || missing="$$missing iproute2"; \
	if [ -n "$$missing" ]; then echo "==> installing$$missing (apt-get)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } || \
		{ echo "could not install$$missing: install it with your package manager"; exit 1; }; fi

.PHONY: test-assets
test-assets: $(K8S_ASSETS_STAMP) ## Build etcd, kube-apiserver, kube-controller-manager and kubectl into bin/k8s.
ifndef K8S_ASSETS_STAMP
	@echo "using KUBEBUILDER_ASSETS=$(KUBEBUILDER_ASSETS) as set; nothing built"
endif

# The Makefile's versions name the stamp, the tools modules decide what is
# built: refuse to build when they disagree.
.PHONY: check-asset-versions
check-asset-versions:
	@grep -Eq '^(require )?[[:space:]]*k8s.io/kubernetes $(K8S_VERSION)([[:space:]]|$$)' tools/k8s/go.mod || \
		{ echo "tools/k8s/go.mod does not require k8s.io/kubernetes $(K8S_VERSION) (K8S_VERSION in the Makefile); keep them in step"; exit 1; }
	@grep -Eq '^(require )?[[:space:]]*go.etcd.io/etcd/server/v3 $(ETCD_VERSION)([[:space:]]|$$)' tools/etcd/go.mod || \
		{ echo "tools/etcd/go.mod does not require go.etcd.io/etcd/server/v3 $(ETCD_VERSION) (ETCD_VERSION in the Makefile); keep them in step"; exit 1; }

$(K8S_ASSETS_STAMP): | check-asset-versions
	@mkdir -p $(KUBEBUILDER_ASSETS)
	@echo "==> building etcd $(ETCD_VERSION) into $(KUBEBUILDER_ASSETS) (about 1 minute cold)"
	cd tools/etcd && GOWORK=off go build -ldflags '-s -w' -o $(KUBEBUILDER_ASSETS)/etcd .
	@echo "==> building kube-apiserver, kube-controller-manager, kubectl $(K8S_VERSION) into $(KUBEBUILDER_ASSETS) (about 15 minutes cold on 2 cores, seconds when cached)"
	cd tools/k8s && GOWORK=off go build -ldflags '$(K8S_LDFLAGS)' -o $(KUBEBUILDER_ASSETS)/ \
		k8s.io/kubernetes/cmd/kube-apiserver \
		k8s.io/kubernetes/cmd/kube-controller-manager \
		k8s.io/kubernetes/cmd/kubectl
	@rm -f $(KUBEBUILDER_ASSETS)/.built-*
	@touch $@

# Every fuzz target of the pure parsers runs for FUZZTIME on top of its
# seeds (which go test runs anyway); a crash it finds is written to the
# package's testdata/fuzz and fails the run (ADRs 0180, 0232). Go 1.26's fuzz
# coordinator can fail a run at the FUZZTIME boundary with a bare "context
# deadline exceeded" and no input written (go.dev/issue/75804, fixed in Go
# 1.27): a failure that wrote no input is run once more, and fails the
# build only if it fails again (a written input would be among the
# second run's seeds and fail it deterministically).
FUZZ_PKGS ?= ./internal/pin ./internal/pin/pip ./internal/pin/actions ./internal/pin/manifest ./internal/pin/maven ./internal/pin/nuget ./internal/pin/cargo ./internal/pin/terraform ./internal/pin/bundler ./internal/pin/composer ./internal/pin/docker ./internal/pin/helm ./internal/adr ./internal/dependabot ./pinbot/internal/source ./pinbot/internal/botcfg
FUZZTIME  ?= 3s
.PHONY: test-fuzz
test-fuzz: ## Fuzz every parser for FUZZTIME (3s) each.
	@for p in $(FUZZ_PKGS); do \
		for f in $$(go test -list '^Fuzz' $$p | grep '^Fuzz'); do \
			echo "==> go test -fuzz $$f $$p ($(FUZZTIME))"; \
			out=$$(go test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$p 2>&1) && continue; \
			if echo "$$out" | grep -q 'Failing input written to'; then echo "$$out"; exit 1; fi; \
			echo "    $$f failed without writing an input (go.dev/issue/75804?); running it again:"; \
			echo "$$out" | tail -3 | sed 's/^/    /'; \
			go test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
		done; \
	done

.PHONY: test-charts
test-charts: $(HELM) test-assets build ## Lint and render the Helm charts, validate them against the real API server, prove the operator's RBAC.
	cd operator && HELM="$(HELM)" TENANT_OPERATOR="$(BIN)/tenant-operator" PINBOT="$(BIN)/pinbot" \
		go test -count=1 -run 'Chart' ./test/charttest/...

# The chaos suites (issue 25). The operator's (operator/test/chaos) runs
# its short variants in test-go already; this runs the long ones
# (CHAOS_LONG=1: 1,000 Tenants through a leader failover, the API server
# unreachable for 60 s) and prints, per fault, what was injected, how long
# recovery took and what was lost: the figures of docs/reliability.md.
CHAOS_DIR ?= $(ROOT)/out/chaos
.PHONY: chaos
chaos: build test-assets ## Run the chaos tests' long variants (operator: 1,000 Tenants, 60 s partition) and print the Reliability figures.
	@mkdir -p $(CHAOS_DIR) && rm -f $(CHAOS_DIR)/operator.md
	@echo "==> operator chaos, long variants (full log in $(CHAOS_DIR)/operator.log)"
	cd operator && CHAOS_LONG=1 CHAOS_REPORT="$(CHAOS_DIR)/operator.md" TENANT_OPERATOR="$(BIN)/tenant-operator" \
		go test -count=1 -timeout 60m -v ./test/chaos 2>&1 | tee $(CHAOS_DIR)/operator.log | \
		grep -E '^(--- |ok|FAIL)|_test.go:[0-9]+: figure:'
	@echo "==> operator Reliability figures: $$(uname -m), $$(nproc) cores, $$(date -u +%F)"
	@echo "| fault | injected | recovery | lost | repeats, restarts |"
	@echo "|---|---|---|---|---|"
	@cat $(CHAOS_DIR)/operator.md
	@echo "==> pinbot chaos, long variants (60 s of 502; full log in $(CHAOS_DIR)/pinbot.log)"
	@echo "==> pinbot Reliability figures (FIGURE lines): $$(uname -m), $$(nproc) cores, $$(date -u +%F)"
	CHAOS_LONG=1 go test -count=1 -timeout 20m -v -run 'TestRedeliveryAfterPinbotWasDown|TestKilledMidBurst|TestGitHubAnswers502|TestTokenEndpointDown|TestReplicaKilledHoldingLiftLock|TestSweepJudgesWhatNoDeliveryBrought|TestJudgedThriceWrittenOnce' \
		./pinbot/internal/server 2>&1 | tee $(CHAOS_DIR)/pinbot.log | grep -E '^(--- |ok|FAIL)|FIGURE'

.PHONY: bench
bench: build test-assets ## Run the benchmarks and print the figures the README quotes.
	@for m in $(MODULES); do \
		echo "==> go test -bench $$m"; \
		(cd $$m && go test $(BENCH_FLAGS) ./...) || exit 1; \
	done
	@echo "==> own decision-record corpus (docs/records.md)"; go test -count=1 -run '^TestCorpusScore$$' -v ./internal/adr/ | grep 'own corpus:'
	@echo "==> real decision records: test/records halves and the shared corpus (issue 35)"; $(MAKE) --no-print-directory bench-records
	@echo "==> operator figures (operator/test/cmd/soak --bench: idle, 1,000 Tenants by kubectl apply, resync, plain client x4 and x16, cold start)"
	cd operator && go build -o $(BIN)/soak ./test/cmd/soak
	cd operator && $(BIN)/soak --bench $(SOAK_FLAGS) $(OPERATOR_BENCH_FLAGS) --dir "$(ROOT)/out/bench"

# Decision records nobody tuned on (issue 35, test/records/README.md): both
# halves and the shared corpus. The texts are not in git: materialize them
# into RECORDS_DIR first (test/records/materialize.sh).
# The shared corpus (real-adrs) lies beside the checkout, as on the
# developers' machines and in CI.
RECORDS_DIR   ?= $(abspath $(ROOT)/../records-cache)
SHARED_CORPUS ?= $(abspath $(ROOT)/../shared/corpus/real-adrs)
.PHONY: bench-records
bench-records: build ## Score pinbot on test/records (tune, test) and the shared corpus (RECORDS_DIR: materialized texts; SHARED_CORPUS).
	@if [ -d "$(RECORDS_DIR)" ]; then \
		go run ./test/records/score --pinbot "$(BIN)/pinbot" --texts "$(RECORDS_DIR)" --split tune && \
		go run ./test/records/score --pinbot "$(BIN)/pinbot" --texts "$(RECORDS_DIR)" --split test; \
	else echo "records corpus NOT scored: no texts in $(RECORDS_DIR) (run RECORDS_DIR=$(RECORDS_DIR) test/records/materialize.sh)"; fi
	@if [ -d "$(SHARED_CORPUS)" ]; then go run ./test/records/score --pinbot "$(BIN)/pinbot" --shared "$(SHARED_CORPUS)"; \
	else echo "shared corpus NOT scored: no $(SHARED_CORPUS)"; fi

.PHONY: bench-capsule
bench-capsule: build $(HELM) test-assets ## Capsule's webhooks against our admission policies, side by side (CAPSULE_SRC: a Capsule checkout; CAPSULE_BIN: its manager, else built; ADR 0301, 0302; not in test or bench).
	cd operator && go run ./test/capsulebench --src "$(CAPSULE_SRC)" $(if $(CAPSULE_BIN),--capsule-bin "$(CAPSULE_BIN)") \
		--operator-bin "$(BIN)/tenant-operator" --helm "$(HELM)" --dir "$(ROOT)/out/bench-capsule" $(CAPSULE_BENCH_FLAGS)

# The operator soak: its load and thresholds are in
# .github/memory-verification.yaml (ADR 0208; measured in ADR 0045, 0107,
# 0160), which pinbot protects and the workflow reads from the base branch.
# Each of these, when set, overrides the file for one run (e.g.
# `make verify-memory SOAK_DURATION=30m`); the workflow sets
# VERIFY_MEMORY_DURATION only on a manual run.
MEMORY_VERIFICATION_CONFIG ?= $(ROOT)/.github/memory-verification.yaml
SOAK_DURATION          ?=
VERIFY_MEMORY_DURATION ?= $(SOAK_DURATION)
SOAK_WARMUP            ?=
SOAK_TENANTS           ?=
SOAK_RATE              ?=
MEMORY_CEILING         ?=
MEMORY_MAX_GROWTH      ?=
SOAK_FLAGS = --assets "$(KUBEBUILDER_ASSETS)" --crds config/crd/bases \
	--operator "$(BIN)/tenant-operator" --pinbot "$(BIN)/pinbot"

# Base against head (ADR 0160): VERIFY_MEMORY_BASE=<git ref> builds the
# operator at that ref into bin/tenant-operator-base (or take a prebuilt one
# with VERIFY_MEMORY_BASE_OPERATOR=path), soaks it first with this tree's
# harness, then soaks this tree's operator and judges it against the base's
# report with the file's judge.withBaseline thresholds (MEMORY_MAX_GROWTH_WITH_BASE,
# MEMORY_MAX_SLOPE_INCREASE, MEMORY_MAX_PEAK_INCREASE override them). The
# workflow runs the base branch's Makefile and file with both operators
# prebuilt: VERIFY_MEMORY_BASE_OPERATOR and VERIFY_MEMORY_HEAD_OPERATOR
# (default: this tree's bin/tenant-operator).
VERIFY_MEMORY_BASE          ?=
VERIFY_MEMORY_BASE_OPERATOR ?=
VERIFY_MEMORY_HEAD_OPERATOR ?= $(BIN)/tenant-operator
MEMORY_MAX_GROWTH_WITH_BASE ?=
MEMORY_MAX_SLOPE_INCREASE   ?=
MEMORY_MAX_PEAK_INCREASE    ?=
# opt adds a flag only for a variable that is set.
opt = $(if $(2),$(1) "$(2)")
SOAK_RUN_FLAGS = $(SOAK_FLAGS) --config "$(MEMORY_VERIFICATION_CONFIG)" $(call opt,--tenants,$(SOAK_TENANTS)) \
	$(call opt,--warmup,$(SOAK_WARMUP)) $(call opt,--duration,$(VERIFY_MEMORY_DURATION)) $(call opt,--rate,$(SOAK_RATE)) \
	$(call opt,--ceiling,$(MEMORY_CEILING))

.PHONY: verify-memory
verify-memory: build test-assets ## Soak the operator under reconcile load and judge its memory (report in out/memory); VERIFY_MEMORY_BASE=ref judges it against that ref's operator.
	cd operator && go build -o $(BIN)/soak ./test/cmd/soak
ifeq ($(VERIFY_MEMORY_BASE)$(VERIFY_MEMORY_BASE_OPERATOR),)
	cd operator && exec $(BIN)/soak $(SOAK_RUN_FLAGS) --dir "$(ROOT)/out/soak" --report "$(ROOT)/out/memory" \
		$(call opt,--max-growth,$(MEMORY_MAX_GROWTH))
else
ifeq ($(VERIFY_MEMORY_BASE_OPERATOR),)
	@echo "==> building the base's operator ($(VERIFY_MEMORY_BASE)) into $(BIN)/tenant-operator-base"
	rm -rf "$(ROOT)/out/base-src" && mkdir -p "$(ROOT)/out/base-src"
	git archive --format=tar "$(VERIFY_MEMORY_BASE)" | tar -x -C "$(ROOT)/out/base-src"
	cd "$(ROOT)/out/base-src/operator" && go build -o $(BIN)/tenant-operator-base ./cmd/tenant-operator
endif
	@echo "==> soaking the base's operator (report in out/memory-base)"
	rm -rf "$(ROOT)/out/memory-base"
	@# The base failing its own rules is no reason to stop: it is the yardstick.
	cd operator && { $(BIN)/soak $(SOAK_RUN_FLAGS) --operator "$(or $(VERIFY_MEMORY_BASE_OPERATOR),$(BIN)/tenant-operator-base)" \
		$(call opt,--max-growth,$(MEMORY_MAX_GROWTH)) --dir "$(ROOT)/out/soak-base" --report "$(ROOT)/out/memory-base" || test $$? -eq 1; }
	@echo "==> soaking this tree's operator against the base (report in out/memory)"
	cd operator && exec $(BIN)/soak $(SOAK_RUN_FLAGS) --operator "$(VERIFY_MEMORY_HEAD_OPERATOR)" \
		--dir "$(ROOT)/out/soak" --report "$(ROOT)/out/memory" --baseline "$(ROOT)/out/memory-base" \
		$(call opt,--max-growth,$(MEMORY_MAX_GROWTH_WITH_BASE)) $(call opt,--max-slope-increase,$(MEMORY_MAX_SLOPE_INCREASE)) \
		$(call opt,--max-peak-increase,$(MEMORY_MAX_PEAK_INCREASE))
endif

##@ Development

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy, CRDs and RBAC; copy them into the chart.
	@if [ -d operator/api ]; then \
		cd operator && $(CONTROLLER_GEN) object paths=./api/... && \
		$(CONTROLLER_GEN) crd rbac:roleName=tenant-operator paths=./... \
			output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac; \
	fi
	@# The operator module cannot import internal/version without a replace:
	@# it carries a generated copy (ADR 0121).
	@mkdir -p operator/internal/version
	@{ printf '// Code generated by make generate from internal/version/version.go; DO NOT EDIT.\n\n'; \
		cat internal/version/version.go; } > operator/internal/version/version.go
	@# The chart's CRDs and rbac.rules follow the operator's (ADR 0042, ADR 0043).
	@if [ -f operator/config/rbac/role.yaml ]; then \
		rm -f charts/tenant-operator/files/crds/*.yaml && \
		cp operator/config/crd/bases/*.yaml charts/tenant-operator/files/crds/ && \
		cd operator && go run ./test/charttest/cmd/rbacvalues \
			-role config/rbac/role.yaml -values ../charts/tenant-operator/values.yaml; \
	fi

.PHONY: lint
lint: $(STATICCHECK) $(ACTIONLINT) ## gofmt, go vet and staticcheck on every module; actionlint on every workflow.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@for m in $(MODULES); do (cd $$m && go vet ./... && $(STATICCHECK) ./...) || exit 1; done
	@for m in tools/images; do (cd $$m && GOWORK=off go vet ./...) || exit 1; done
	@# actionlint checks the workflows' syntax, expressions, action inputs and,
	@# when shellcheck is installed (make test-packages), their run: scripts;
	@# the local actions through the workflows that use them, the example
	@# workflows of docs/examples by name. actionlint $(ACTIONLINT_VERSION) predates
	@# concurrency's queue key (GitHub, 2026-05-07; ADR 0343): that one
	@# message is ignored.
	$(ACTIONLINT) -no-color -ignore 'unexpected key "queue" for "concurrency" section'
	$(ACTIONLINT) -no-color -ignore 'unexpected key "queue" for "concurrency" section' docs/examples/*.yml

.PHONY: tidy
tidy: ## go mod tidy in every module (tools modules included).
	@for m in $(MODULES) tools/k8s tools/etcd tools/images; do (cd $$m && GOWORK=off go mod tidy) || exit 1; done

.PHONY: verify
verify: generate tidy ## Regenerate and tidy, then fail if the tree changed.
	@git diff --exit-code || { echo "make verify: generated or tidied files are out of date; run 'make generate tidy' and commit"; exit 1; }
	@# go.work.sum only accumulates checksums of whatever the workspace has
	@# fetched so far; it is neither committed nor checked.
	@test -z "$$(git status --porcelain -- . ':!go.work.sum')" || \
		{ git status --porcelain -- . ':!go.work.sum'; echo "make verify: untracked files appeared"; exit 1; }

##@ Tools

# go-install installs $(1)@$(2) and names the binary $(3).
define go-install
	@mkdir -p $(BIN)/.install
	GOBIN=$(BIN)/.install GOWORK=off go install $(1)@$(2)
	mv $(BIN)/.install/$(notdir $(1)) $(3)
endef

$(CONTROLLER_GEN):
	$(call go-install,sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_GEN_VERSION),$@)

$(HELM):
	$(call go-install,helm.sh/helm/v4/cmd/helm,$(HELM_VERSION),$@)

$(STATICCHECK):
	$(call go-install,honnef.co/go/tools/cmd/staticcheck,$(STATICCHECK_VERSION),$@)

$(CYCLONEDX_GOMOD):
	$(call go-install,github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod,$(CYCLONEDX_GOMOD_VERSION),$@)

$(ACTIONLINT):
	$(call go-install,github.com/rhysd/actionlint/cmd/actionlint,$(ACTIONLINT_VERSION),$@)

.PHONY: tools
tools: $(CONTROLLER_GEN) $(HELM) $(STATICCHECK) $(ACTIONLINT) ## Install the pinned tools into bin/.

# clean keeps the control plane in bin/k8s, 15 minutes to build cold, and
# says so; clean-all removes it too (ADR 0291).
.PHONY: clean
clean: ## Remove out/ and bin/ except the control plane in bin/k8s (make clean-all removes it too).
	rm -rf $(ROOT)/out
	@if [ -d $(BIN) ]; then find $(BIN) -mindepth 1 -maxdepth 1 ! -name k8s -exec rm -rf {} +; fi
	@if [ -d $(BIN)/k8s ]; then echo "kept $(BIN)/k8s (the control plane, about 15 minutes to rebuild); make clean-all removes it"; fi

.PHONY: clean-all
clean-all: ## Remove bin/ and out/, the control plane in bin/k8s included.
	rm -rf $(BIN) $(ROOT)/out
