import { defineConfig } from 'vitest/config';

// Two projects: `unit` (in-process, fast) and `e2e` (starts servers as processes and talks to them with
// the SDK Client). `npm test` runs both; `npm run test:unit` / `npm run test:e2e` run one.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/e2e-envelope/**', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/e2e-envelope/**/*.test.ts'],
        },
      },
    ],
  },
});
