// The errors a user can cause, each with the exit code the docs promise.
// Anything that is not a DroverError is a bug: the CLI shows its stack only with DEBUG.

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  stateDir: 5,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

// Every DroverError carries this mark. `drover ui` and `drover mcp` run their
// front-end on the library as a package while the CLI runs from its bundle
// (scripts/bundle-cli.mjs): two copies of this class in one process, and an
// error the dashboard throws must still be the user's error to the CLI.
const MARK = Symbol.for('drover.DroverError')

export class DroverError extends Error {
  /** Any copy's DroverError is one; subclasses are told apart as usual. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== DroverError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return typeof value === 'object' && value !== null && MARK in value
  }

  readonly [MARK] = true
  readonly exitCode: ExitCodeValue
  /** Structured detail for --json output (e.g. {id, found: false}). */
  readonly data?: Record<string, unknown>

  constructor(message: string, exitCode: ExitCodeValue = ExitCode.failed, data?: Record<string, unknown>) {
    super(message)
    this.name = 'DroverError'
    this.exitCode = exitCode
    this.data = data
  }
}

export const usageError = (message: string) => new DroverError(message, ExitCode.usage)
export const conflictError = (message: string, data?: Record<string, unknown>) =>
  new DroverError(message, ExitCode.conflict, data)
export const stateDirError = (message: string) => new DroverError(message, ExitCode.stateDir)
/** A ref that named no task, as batch commands report it; `didYouMean`: a task name one typo away. */
export interface MissingRef {
  id: string
  found: false
  didYouMean?: string
}

/** `no such task: fxi (did you mean fix?)`: how every front-end words a missing ref. */
export const noSuchTask = (m: MissingRef) => `no such task: ${m.id}${m.didYouMean ? ` (did you mean ${m.didYouMean}?)` : ''}`

export const notFoundError = (ref: string, didYouMean: string | null = null) => {
  const missing: MissingRef = {id: ref, found: false, ...(didYouMean ? {didYouMean} : {})}
  return new DroverError(noSuchTask(missing), ExitCode.notFound, {...missing})
}
