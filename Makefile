# The two things a user does: run the main job on the local default, and run the tests.
# Both need root (network namespaces) and install what is missing first.
.PHONY: setup quickstart test typecheck

# Where `go test -json` output goes (CI counts it); empty = plain output.
GO_TEST_JSON ?=

setup:
	@bash scripts/setup.sh

quickstart: setup
	npx fragbench quickstart

typecheck:
	npx tsc --noEmit -p tsconfig.json

# Where jest writes its results as JSON (CI counts them); empty = terminal only.
JEST_JSON_DIR ?=

# Where each short benchmark's pass/fail line goes (CI counts it); empty = terminal only.
BENCH_RESULTS ?=

test: setup
	npx tsc --noEmit -p tsconfig.json
	npm run --silent check:imports
	@GO_TEST_JSON="$(GO_TEST_JSON)" bash scripts/run-test-scripts.sh
	@JEST_JSON_DIR="$(JEST_JSON_DIR)" bash scripts/run-jest.sh
	@BENCH_RESULTS="$(BENCH_RESULTS)" bash scripts/run-benchmarks.sh
