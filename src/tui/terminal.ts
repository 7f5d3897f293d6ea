// The terminal `top` draws on, and the promise to give it back as it was:
// the alternate screen, a hidden cursor, no line wrap and raw keys while top
// runs; the normal screen, cursor, wrap and cooked keys again on every way
// out — q, Ctrl-C, a crash, SIGTERM, SIGINT, and SIGHUP when the ssh session
// drops. Writes to a terminal are synchronous in Node on Unix, so what a
// signal handler writes is out before the process exits; restoring is done
// once, and a terminal that is gone (SIGHUP) is not an error.

const ENTER = '\u001B[?1049h\u001B[?25l\u001B[?7l\u001B[H\u001B[2J'
const LEAVE = '\u001B[0m\u001B[?1000l\u001B[?1006l\u001B[?7h\u001B[?25h\u001B[?1049l'
const MOUSE_ON = '\u001B[?1000h\u001B[?1006h'

/** What each signal that ends top exits with: 128 + its number, as a shell reports it. */
const SIGNAL_EXITS = {SIGINT: 130, SIGTERM: 143, SIGHUP: 129} as const

export interface TerminalIO {
  input: NodeJS.ReadStream
  output: NodeJS.WriteStream
}

export class Terminal {
  private active = false
  /** the terminal went away (EIO, EPIPE after a hang-up): nothing more is written. */
  private gone = false
  private readonly onSignal = new Map<NodeJS.Signals, () => void>()
  private readonly onExit = () => this.restore()
  private readonly onCrash = (error: unknown) => {
    this.restore()
    process.stderr.write(`drover: top failed: ${error instanceof Error ? error.message : String(error)}\n`)
    if (process.env.DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`)
    process.exit(1)
  }

  constructor(
    private readonly io: TerminalIO,
    private readonly opts: {mouse: boolean},
  ) {}

  get width(): number {
    return this.io.output.columns || 80
  }

  get height(): number {
    return this.io.output.rows || 24
  }

  /** Takes the terminal over; `end` is called with the exit code when a signal asks top to go. */
  open(end: (code: number) => void): void {
    for (const [signal, code] of Object.entries(SIGNAL_EXITS) as [NodeJS.Signals, number][]) {
      const handler = () => {
        this.restore()
        end(code)
      }
      this.onSignal.set(signal, handler)
      process.on(signal, handler)
    }
    this.io.output.on('error', () => (this.gone = true))
    process.on('exit', this.onExit)
    process.on('uncaughtException', this.onCrash)
    process.on('unhandledRejection', this.onCrash)
    this.io.input.setRawMode(true)
    this.io.input.setEncoding('utf8')
    this.io.input.resume()
    this.active = true
    this.write(ENTER + (this.opts.mouse ? MOUSE_ON : ''))
  }

  /** Writes to the terminal; false once it is gone. */
  write(text: string): boolean {
    if (this.gone) return false
    try {
      this.io.output.write(text)
      return true
    } catch {
      this.gone = true
      return false
    }
  }

  /** Gives the terminal back as it was; safe to call more than once, from anywhere. */
  restore(): void {
    if (!this.active) return
    this.active = false
    this.write(LEAVE)
    try {
      this.io.input.setRawMode(false)
    } catch {
      // the terminal is gone (SIGHUP): nothing to give back
    }
    this.io.input.pause()
  }

  /**
   * Lends the terminal to another program in the foreground (`attach`): the
   * normal screen and cooked keys, and top's signal handlers off, so the
   * terminal's Ctrl-C and hang-up are that program's to take.
   */
  stepAside(): void {
    this.restore()
    for (const [signal, handler] of this.onSignal) process.removeListener(signal, handler)
  }

  /** Takes the terminal back after stepAside; false when it is gone meanwhile (closed). */
  comeBack(): boolean {
    for (const [signal, handler] of this.onSignal) process.on(signal, handler)
    try {
      this.io.input.setRawMode(true)
    } catch {
      this.gone = true
      return false
    }
    this.io.input.resume()
    this.active = true
    return this.write(ENTER + (this.opts.mouse ? MOUSE_ON : ''))
  }

  /** Removes the handlers once top has ended. */
  close(): void {
    this.restore()
    for (const [signal, handler] of this.onSignal) process.removeListener(signal, handler)
    process.removeListener('exit', this.onExit)
    process.removeListener('uncaughtException', this.onCrash)
    process.removeListener('unhandledRejection', this.onCrash)
  }
}
