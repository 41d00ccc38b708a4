// One jest project per kind of test, so a developer can run the quick ones alone
// (`npx jest --selectProjects unit`) and CI runs them all.
const tsJest = { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] };
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
    project('engine', ['<rootDir>/test/engine/**/*.test.ts']),
    project('infra', ['<rootDir>/test/infra/**/*.test.ts']),
    project('report', ['<rootDir>/test/report/**/*.test.ts']),
  ],
};
