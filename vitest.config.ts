import {defineConfig} from 'vitest/config'

// Unit tests run in parallel; e2e and reliability tests start real detached
// processes and signal them, so they run one file at a time on the 2-core machines.
export default defineConfig({
  test: {
    projects: [
      {test: {name: 'unit', include: ['test/*.test.ts', 'test/core/**/*.test.ts', 'test/render/**/*.test.ts', 'test/scripts/**/*.test.ts'], testTimeout: 20_000}},
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
})
