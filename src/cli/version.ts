// Kept in step with package.json by test/cli/version.test.ts; a literal avoids reading JSON at start.
export const VERSION = '0.1.0';
