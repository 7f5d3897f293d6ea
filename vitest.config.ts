import {defineConfig} from 'vitest/config'

// Unit tests run in parallel; e2e and reliability tests start real detached
// processes and signal them, so they run one file at a time on the 2-core machines.
// The agents project runs the real claude and codex against fake model servers:
// only through scripts/test-agents.mjs, inside a loopback-only network namespace
// (its setup file fails every file otherwise).
// Under Wine (scripts/test-windows.mjs) a file operation costs ten times what it
// costs on Linux, and beside two other suites a unit test of 60 records took 36 s.
const WINE = process.env.DROVER_TEST_UNDER_WINE === '1'

export default defineConfig({
  test: {
    projects: [
      {test: {name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'test/reliability/**', 'test/real-agents/**', 'test/slurm/**', 'test/windows/**', '**/node_modules/**'], testTimeout: WINE ? 60_000 : 20_000, hookTimeout: WINE ? 90_000 : 30_000, setupFiles: ['test/helpers/property-seed.ts']}},
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 30_000,
          // A page or a runner answers in milliseconds alone, in seconds beside two other suites
          // on two cores (CI's stages run side by side): expect.poll's own 1 s default failed there.
          expect: {poll: {timeout: 15_000}},
          setupFiles: ['test/helpers/property-seed.ts'],
        },
      },
      {
        // drover on Windows end to end: only through scripts/test-windows.mjs, which runs
        // vitest itself under the Windows build of Node in Wine (its setup file fails every
        // file on any other platform).
        test: {
          name: 'windows',
          include: ['test/windows/**/*.test.ts'],
          setupFiles: ['test/windows/setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        // On a real single-node Slurm cluster: only through scripts/test-slurm.mjs, which brings it up.
        test: {
          name: 'slurm',
          include: ['test/slurm/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 30_000,
          setupFiles: ['test/slurm/cluster-health.ts'],
        },
      },
      {
        test: {
          name: 'agents',
          include: ['test/real-agents/**/*.test.ts'],
          setupFiles: ['test/real-agents/harness/setup.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
