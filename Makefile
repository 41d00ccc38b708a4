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
# result); the target fails at the end if any did. scripts/run-tests.sh says what runs beside what.
# With PHASE_TIMES set, each step's duration is appended there (CI prints them).
PHASE_TIMES ?=

test:
	@export PHASE_TIMES="$(PHASE_TIMES)"; \
	bash scripts/timed.sh setup $(MAKE) --no-print-directory setup || exit 1; \
	JEST_JSON_DIR="$(JEST_JSON_DIR)" GO_TEST_JSON="$(GO_TEST_JSON)" BENCH_RESULTS="$(BENCH_RESULTS)" bash scripts/run-tests.sh
