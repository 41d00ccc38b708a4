/**
 * CLI option values are parsed by commander, through the shared parsers of cli/options.ts or its
 * own `choices`: a bad value stops the command before it runs, naming the option; no command
 * parses a value by hand.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { registerFleetCommands } from '../../cli/fleet';
import { positiveNumber } from '../../cli/options';
import { registerReportCommands } from '../../cli/report';
import { registerRunCommands } from '../../cli/run';
import { registerValidateCommand } from '../../cli/validate';

const CLI = path.resolve(__dirname, '../../cli');

/** The program as cli/main.ts builds it, throwing instead of exiting and keeping its output. */
function program(): { cli: Command; errors: string[] } {
  const errors: string[] = [];
  const cli = new Command('fragbench').exitOverride().configureOutput({ writeErr: (s) => errors.push(s), writeOut: () => undefined });
  registerFleetCommands(cli);
  registerRunCommands(cli);
  registerValidateCommand(cli);
  registerReportCommands(cli);
  return { cli, errors };
}

/** The error commander stops `fragbench <args>` with. */
async function refusal(args: string[]): Promise<{ error: CommanderError; printed: string }> {
  const { cli, errors } = program();
  try {
    await cli.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return { error: err, printed: errors.join('') };
    throw err;
  }
  throw new Error(`fragbench ${args.join(' ')} was accepted`);
}

describe('positiveNumber', () => {
  test.each([
    ['0.2', 0.2],
    ['1', 1],
    ['10', 10],
    [' 3 ', 3],
  ])('accepts %p', (text, value) => {
    expect(positiveNumber(text)).toBe(value);
  });

  test.each(['0', '-1', 'abc', '', ' ', 'Infinity', '1e999', 'NaN', '0x'])(
    "refuses %p with commander's InvalidArgumentError, saying what to give",
    (text) => {
      expect(() => positiveNumber(text)).toThrow(InvalidArgumentError);
      expect(() => positiveNumber(text)).toThrow(/is not a number above 0; give e\.g\. 0\.5$/);
    },
  );
});

describe('commander refuses a bad value before the command runs, naming the option', () => {
  test.each([
    [['validate', 'quickstart', '--time-scale', '0'], '--time-scale'],
    [['run', 'quickstart', '--time-scale', 'fast'], '--time-scale'],
    [['quickstart', '--time-scale', '-1'], '--time-scale'],
    [['fleet', 'shape', '--latency-scale', 'abc'], '--latency-scale'],
    [['fleet', 'shape', '--bandwidth-scale', '0'], '--bandwidth-scale'],
  ])('%j', async (args, option) => {
    const { error, printed } = await refusal(args);
    expect(error.code).toBe('commander.invalidArgument');
    expect(printed).toMatch(new RegExp(`option '${option} <factor>' argument '${args[args.length - 1]}' is invalid\\. ".*" is not a number above 0`));
  });

  test('an export format outside the choices', async () => {
    const { error, printed } = await refusal(['export', 'some-run', '--format', 'xml']);
    expect(error.code).toBe('commander.invalidArgument');
    expect(printed).toMatch(/option '--format <format>' argument 'xml' is invalid\. Allowed choices are csv, json/);
  });

  test('an export without a format', async () => {
    const { error, printed } = await refusal(['export', 'some-run']);
    expect(error.code).toBe('commander.missingMandatoryOptionValue');
    expect(printed).toMatch(/--format <format>/);
  });
});

test('no command parses an option value by hand (Number, parseInt, parseFloat live in cli/options.ts)', () => {
  const byHand = readdirSync(CLI)
    .filter((f) => f.endsWith('.ts') && f !== 'options.ts')
    .filter((f) => /\b(?:Number|parseInt|parseFloat)\(|Number\.parse(?:Int|Float)\(/.test(readFileSync(path.join(CLI, f), 'utf8')));
  expect(byHand).toEqual([]);
  expect(readFileSync(path.join(CLI, 'options.ts'), 'utf8')).toMatch(/Number\(/);
});
