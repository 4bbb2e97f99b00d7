// `npm run test:stress`: the many-seed durability loops and the load test (CI runs it after npm test).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/durability/**/*.stress.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
