// One jest project per kind of test, so a developer can run the quick ones alone
// (`npx jest --selectProjects unit`) and CI runs them all.
// Transpile-only with swc, no type check per test file; `make test` type-checks once with tsc.
// (Cold cache, on a host another job loaded: 187 s for the parallel projects against ts-jest's
// 253 s; in CI, alone, 153 s against 152 s: the transform is not where that time goes.)
const swc = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' }, sourceMaps: 'inline' }],
};
const project = (displayName, testMatch, extra = {}) => ({
  displayName,
  testEnvironment: 'node',
  transform: swc,
  testMatch,
  ...extra,
});

module.exports = {
  projects: [
    project('unit', ['<rootDir>/test/unit/**/*.test.ts']),
    project('netns', ['<rootDir>/test/netns/**/*.test.ts']),
    project('db', ['<rootDir>/test/db/**/*.test.ts']),
    project('workflow', ['<rootDir>/test/workflow/**/*.test.ts']),
    project('engine', ['<rootDir>/test/engine/**/*.test.ts']),
    project('infra', ['<rootDir>/test/infra/**/*.test.ts']),
    project('report', ['<rootDir>/test/report/**/*.test.ts']),
    // The `fragbench` command run as a child process, as users run it (no fleet: fleet commands are in netns).
    project('cli', ['<rootDir>/test/cli/**/*.test.ts']),
  ],
};
