# The two things a user does: run the main job on the local default, and run the tests.
# Both need root (network namespaces) and install what is missing first.
.PHONY: setup quickstart test typecheck lint

# Where `go test -json` output goes (CI counts it); empty = plain output.
GO_TEST_JSON ?=

setup:
	@bash scripts/setup.sh

quickstart: setup
	npx fragbench quickstart

typecheck:
	npx tsc --noEmit -p tsconfig.json

# eslint (typescript-eslint's type-checked rules, eslint.config.mjs) and prettier over the whole repository: zero findings.
lint:
	npx eslint . && npx prettier --check .

# Where jest writes its results as JSON (CI counts them); empty = terminal only.
JEST_JSON_DIR ?=

# Where each short benchmark's pass/fail line goes (CI counts it); empty = terminal only.
BENCH_RESULTS ?=

# Every runner runs even when one before it failed (a failed Go timing test once hid every jest
# result); the target fails at the end if any did.
# With PHASE_TIMES set, each step's duration is appended there (CI prints them).
PHASE_TIMES ?=

test:
	@export PHASE_TIMES="$(PHASE_TIMES)"; \
	bash scripts/timed.sh setup $(MAKE) --no-print-directory setup || exit 1; \
	failed=; \
	bash scripts/timed.sh typecheck npx tsc --noEmit -p tsconfig.json || failed="$$failed typecheck"; \
	bash scripts/timed.sh lint $(MAKE) --no-print-directory lint || failed="$$failed lint"; \
	bash scripts/timed.sh imports npm run --silent check:imports || failed="$$failed imports"; \
	GO_TEST_JSON="$(GO_TEST_JSON)" bash scripts/timed.sh go bash scripts/run-test-scripts.sh || failed="$$failed go"; \
	JEST_JSON_DIR="$(JEST_JSON_DIR)" bash scripts/run-jest.sh || failed="$$failed jest"; \
	BENCH_RESULTS="$(BENCH_RESULTS)" bash scripts/timed.sh benchmarks bash scripts/run-benchmarks.sh || failed="$$failed benchmarks"; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed" >&2; exit 1; fi
