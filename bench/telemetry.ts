/**
 * What host telemetry costs: runs the sampler for N seconds (default 60; `--seconds 5` in CI) and
 * prints its own CPU (from process.cpuUsage, so it includes Node's event loop and the /proc reads),
 * the processes it classified per role, and the last sample. Target: under 2 % of one core.
 * Classifies with the local fleet's state and reads the emulator's link counters when a fleet is
 * up; runs without one too.
 *
 *   npx tsx bench/telemetry.ts [--seconds N] [--short]
 */
import { Command } from 'commander';
import { readState } from '../infra/local/state';
import { TelemetrySampler } from '../operations/telemetry/sampler';
import { localTelemetryOptions } from '../operations/telemetry/local-fleet';
import type { TelemetrySample } from '../core/telemetry';
import { sleep } from '../platform/wait';
import { runBenchmark, Targets } from './targets';

const TARGET_PERCENT_OF_CORE = 2;

async function main(): Promise<void> {
  const opts = new Command()
    .option('--seconds <n>', 'how long to sample', (v) => Number(v), 60)
    .option('--short', "CI's short mode: 5 s")
    .parse()
    .opts<{ seconds: number; short?: boolean }>();
  const seconds = opts.short ? 5 : opts.seconds;
  const state = readState();
  const sampler = new TelemetrySampler({ ...localTelemetryOptions(state), onError: (err) => console.error(`telemetry: ${err.message}`) });
  const samples: TelemetrySample[] = [];
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await sampler.start((s) => samples.push(s));
  await sleep(seconds * 1000);
  sampler.stop();
  const cpu = process.cpuUsage(cpuBefore);
  const wallS = (performance.now() - startedAt) / 1000;
  const cpuMsPerS = (cpu.user + cpu.system) / 1000 / wallS;

  console.log(`fleet: ${state ? `${state.plan.name} (${state.status})` : 'none (classified by program only)'}`);
  console.log(`samples: ${samples.length} in ${wallS.toFixed(1)} s`);
  console.log(
    `sampler CPU: ${cpuMsPerS.toFixed(2)} ms per second; user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms`,
  );
  const targets = new Targets();
  // The measurer's own budget: what keeps telemetry out of what it measures, so it is judged in every mode.
  targets.below('sampler CPU, % of one core', cpuMsPerS / 10, TARGET_PERCENT_OF_CORE, ' %');
  // One sample a second; the first comes a second after the start.
  targets.atLeast(`samples in ${seconds} s`, samples.length, seconds - 1, '', { digits: 0 });
  console.log('processes classified per role:');
  for (const [role, n] of Object.entries(sampler.classified()).sort()) console.log(`  ${role.padEnd(20)} ${n}`);
  const last = samples.at(-1);
  if (last) {
    const { interfaces, links, ...host } = last;
    console.log(`last sample: ${JSON.stringify(host)}`);
    console.log(`  ${Object.keys(interfaces).length} interfaces; ${Object.keys(links).length} links: ${JSON.stringify(links)}`);
  }
  targets.finish();
}

runBenchmark('telemetry', main);
