// One jest project per kind of test, so a developer can run the quick ones alone
// (`npx jest --selectProjects unit`) and CI runs them all.
// Transpile-only (no type check per test file): tsconfig's isolatedModules tells ts-jest so;
// `make test` type-checks the whole tree once with tsc first.
const tsJest = { '^.+\\.ts$': 'ts-jest' };
const project = (displayName, testMatch, extra = {}) => ({
  displayName,
  testEnvironment: 'node',
  transform: tsJest,
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
