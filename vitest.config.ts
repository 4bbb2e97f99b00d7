import { defineConfig } from 'vitest/config';

/**
 * The suites that also run against the pessimistic local control plane (src/server/profiles.ts):
 * everything that drives the real CLI or a real server end to end. Each project names its profile
 * in the output (`|default|`, `|pessimistic|`); pick one with `--project pessimistic`.
 */
export const PESSIMISTIC_SUITES = [
  'test/cli/**/*.test.ts',
  'test/examples/**/*.test.ts',
  'test/security/leak*.test.ts',
  'test/security/control-characters.test.ts',
  'test/durability/*.test.ts',
];
// The many-seed durability loops and the load test run with `npm run test:stress`.
const EXCLUDE = ['**/node_modules/**', 'test/**/*.stress.test.ts'];
// The GitLab and GitHub pipeline tests run whole pipelines (minutes) of recipes whose behaviour
// is the CLI's, which the other suites check in every project: once is enough.
const PIPELINES = ['test/examples/gitlab-pipeline.test.ts', 'test/examples/github-pipeline.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      // The variable is set in both, so a developer's shell never decides which profile a test meets.
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'], exclude: EXCLUDE, env: { AGENTFORM_SERVER_PROFILE: 'default' } } },
      {
        extends: true,
        test: { name: 'pessimistic', include: PESSIMISTIC_SUITES, exclude: [...EXCLUDE, ...PIPELINES], env: { AGENTFORM_SERVER_PROFILE: 'pessimistic' } },
      },
      // The CLI's and the examples' suites with every speed-up off (src/util/optimizations.ts): each
      // is proved removable, and no test of behaviour depends on one.
      {
        extends: true,
        test: {
          name: 'optimizations-off',
          include: ['test/cli/**/*.test.ts', 'test/examples/**/*.test.ts'],
          exclude: [...EXCLUDE, ...PIPELINES],
          env: { AGENTFORM_SERVER_PROFILE: 'default', AGENTFORM_OPTIMIZATIONS: 'off' },
        },
      },
    ],
  },
});
