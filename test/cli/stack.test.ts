/**
 * `fragbench run <scenario> --stack <name>` (and `validate --stack`): a scenario run on a Pulumi
 * stack's inventory without editing its file. No cloud here and no Pulumi CLI: a `pulumi` of this
 * file's own, first on PATH, answers `pulumi stack output inventory --json -s <stack>` as the real
 * one does, from an inventory file standing in for the stack's output, and fails as the real one
 * does for a stack that has none. The plan is made on the stack's nodes, the run starts with the
 * stack as its fleet (the scenario file unchanged), and a stack with no inventory is refused
 * (exit 2) naming the `pulumi up` that makes it.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { PROJECT_ROOT } from '../../operations/scenario/scenario-fleet';
import type { ScenarioInput } from '../../workflows/definitions';
import { fragbench, scratchEnv } from '../support/cli';
import { localTemporal } from '../support/temporal';
import { topologyInventory } from '../report/fixtures/synthetic';

jest.setTimeout(60_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-stack-'));
const stacks = path.join(scratch, 'stacks');
const bin = path.join(scratch, 'bin');
const calls = path.join(scratch, 'pulumi-calls');
const STACK = 'fb-test-fhc4';
let temporal: TestWorkflowEnvironment;
let env: Record<string, string>;

/** The Pulumi CLI's answer to `stack output inventory --json -s <stack>`, from $FB_STACKS/<stack>.json; each call logged. */
const FAKE_PULUMI = `#!/bin/sh
echo "$*" >> "$FB_PULUMI_CALLS"
stack=""
while [ $# -gt 0 ]; do [ "$1" = "-s" ] && stack="$2"; shift; done
if [ -f "$FB_STACKS/$stack.json" ]; then cat "$FB_STACKS/$stack.json"; exit 0; fi
echo "error: current stack does not have output property 'inventory'" >&2
exit 255
`;

beforeAll(async () => {
  mkdirSync(stacks);
  mkdirSync(bin);
  // The fleet a `pulumi up` of an fhc-4-shaped stack would report: its nodes and links, from a stack.
  writeFileSync(path.join(stacks, `${STACK}.json`), JSON.stringify({ ...topologyInventory('fhc-4'), source: 'pulumi', name: STACK }));
  writeFileSync(path.join(bin, 'pulumi'), FAKE_PULUMI);
  chmodSync(path.join(bin, 'pulumi'), 0o755);
  temporal = await localTemporal();
  env = {
    ...scratchEnv(scratch),
    PATH: `${bin}:${process.env.PATH}`,
    FB_STACKS: stacks,
    FB_PULUMI_CALLS: calls,
    TEMPORAL_ADDRESS: temporal.address,
    FRAGBENCH_TASK_QUEUE: `fb-cli-stack-${randomUUID()}`,
  };
});

afterAll(async () => {
  await temporal?.teardown();
  rmSync(scratch, { recursive: true, force: true });
});

const QUICKSTART = path.join(PROJECT_ROOT, 'scenarios', 'quickstart.yaml');

test("validate --stack and run --dry-run --stack plan the scenario on the stack's inventory, reading it with pulumi from the project", async () => {
  const before = readFileSync(QUICKSTART, 'utf8');
  const [validated, dry] = await Promise.all([
    fragbench(['validate', 'quickstart', '--stack', STACK, '--json'], env),
    fragbench(['run', 'quickstart', '--stack', STACK, '--dry-run'], env),
  ]);
  expect(validated.stderr).toBe('');
  expect(validated.code).toBe(0);
  expect(JSON.stringify(JSON.parse(validated.stdout))).toContain(STACK);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toMatch(new RegExp(`^fleet ${STACK}: sydney, pune, singapore, seoul, client \\(client client\\); 10 links$`, 'm'));
  expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual(Array(2).fill(`stack output inventory --json -s ${STACK} --cwd ${PROJECT_ROOT}`));
  expect(readFileSync(QUICKSTART, 'utf8')).toBe(before);
});

test('run --stack starts the run with the stack as its fleet', async () => {
  const started = await fragbench(['run', 'quickstart', '--stack', STACK], env);
  expect(started.stderr).toBe('');
  expect(started.code).toBe(0);
  const runId = /^started run (\S+): /m.exec(started.stdout)?.[1] as string;
  const handle = temporal.client.workflow.getHandle(runId);
  try {
    const { events } = await handle.fetchHistory();
    const payload = events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as ScenarioInput;
    expect((input.scenario as { fleet: unknown }).fleet).toEqual({ pulumiStack: STACK, cwd: '.' });
  } finally {
    await handle.terminate('test over').catch(() => undefined);
  }
});

test('a stack with no inventory: refused before anything starts, naming the pulumi up that makes it', async () => {
  const result = await fragbench(['run', 'quickstart', '--stack', 'never-up'], env);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(
    "fleet.pulumiStack: stack never-up has no inventory (pulumi said: error: current stack does not have output property 'inventory')",
  );
  expect(result.stderr).toContain(`bring it up with \`pulumi up -s never-up --cwd ${PROJECT_ROOT}\``);
  const both = await fragbench(['validate', 'quickstart', '--stack', STACK, '--topology', 'fhc-4'], env);
  expect(both.code).toBe(2);
  expect(both.stderr).toMatch(/option '--topology <name\|file>' cannot be used with option '--stack <name>'/);
});
