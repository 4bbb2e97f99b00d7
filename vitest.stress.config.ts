// `npm run test:stress`: the many-seed durability loops and the load test (CI runs it after npm test);
// the fault, throttling and interrupt loops run against the pessimistic server profile too; the long
// plain-YAML differential (test/config) needs no server.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/durability/**/*.stress.test.ts', 'test/config/**/*.stress.test.ts'],
          env: { AGENTFORM_SERVER_PROFILE: 'default' },
        },
      },
      {
        extends: true,
        test: {
          name: 'pessimistic',
          include: ['test/durability/faults.stress.test.ts', 'test/durability/interrupt.stress.test.ts', 'test/durability/throttle.stress.test.ts'],
          env: { AGENTFORM_SERVER_PROFILE: 'pessimistic' },
        },
      },
    ],
  },
});
