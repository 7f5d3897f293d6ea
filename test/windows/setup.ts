// The Windows end-to-end suite runs on Windows only: under Wine through
// scripts/test-windows.mjs, or on a real Windows machine with vitest directly.
// Anywhere else every file fails here rather than passing without testing.
if (process.platform !== 'win32') {
  throw new Error('test/windows runs on Windows only: on Linux use `node scripts/test-windows.mjs` (Wine)')
}
