/**
 * A scenario's `experiment` is a title in the user's words: any text with something in it is
 * accepted, the shipped names included, and it reaches the run plan as written.
 */
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import { inputProblems } from '../support/input-problems';

const scenario = (experiment: string) => `
name: t
experiment: ${JSON.stringify(experiment)}
fleet: { local: fhc-4 }
phases:
  - phase: run
    duration: 10
`;

const check = (experiment: string) => checkScenarioShape(parseScenarioText(scenario(experiment)));

it.each(['Redis under link cuts, 3 a.m.', 'latency-epochs', 'quickstart', 'x'])('accepts the title %j', (title) => {
  expect(check(title).experiment).toBe(title);
});

it.each(['', '   '])('rejects the empty title %j, naming the field', (title) => {
  expect(inputProblems(() => check(title)).map((e) => e.message)).toEqual([expect.stringMatching(/^experiment: must be a title/)]);
});
