// What a call refused with: drover's one-line message and its exit code. A
// call that went through, or failed with anything but a DroverError, fails
// the test.

import {DroverError} from '../../src/base/errors.js'

export function refusal(fn: () => unknown): {message: string; exitCode: number} {
  try {
    fn()
  } catch (error) {
    if (error instanceof DroverError) return {message: error.message, exitCode: error.exitCode}
    throw error
  }
  throw new Error('not refused')
}
