// Driving `drover ui` as a person does: the built CLI as a real child process
// on loopback, and Debian's headless Chromium (through playwright-core, which
// downloads no browser) opening the URL it printed.

import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync} from 'node:fs'
import {request} from 'node:http'
import {chromium, type Browser, type BrowserContext} from 'playwright-core'
import {afterAll, afterEach, beforeAll} from 'vitest'
import {BIN, cleanupStateDirs, waitFor} from './cli.js'

/** Debian's package; CHROMIUM_PATH for another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export interface UiProcess {
  child: ChildProcess
  /** the URL printed, token included. */
  url: string
  /** scheme, host and port. */
  base: string
  port: number
  token: string
  stderr: () => string
  /** Ctrl-C: resolves with the exit code. */
  interrupt: () => Promise<number | null>
}

const running: UiProcess[] = []
const contexts: BrowserContext[] = []

export async function startUi(stateDir: string, args: string[] = [], env: Record<string, string> = {}): Promise<UiProcess> {
  const child = spawn(process.execPath, [BIN, 'ui', ...args], {env: {...process.env, DROVER_STATE_DIR: stateDir, NO_COLOR: '1', ...env}, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (data: Buffer) => (stdout += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = await waitFor(() => /^(http:\/\/\S+)\n/.exec(stdout)?.[1], {timeout: 20_000, message: `drover ui's URL (stderr: ${stderr})`})
  const parsed = new URL(url)
  const ui: UiProcess = {
    child,
    url,
    base: parsed.origin,
    port: Number(parsed.port),
    token: parsed.searchParams.get('token')!,
    stderr: () => stderr,
    interrupt: () => {
      if (child.exitCode === null) child.kill('SIGINT')
      return exited
    },
  }
  running.push(ui)
  return ui
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`)
  return chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true})
}

/**
 * One headless Chromium for the file's tests; after each test the pages and
 * servers it opened are closed and its state dirs (and what `cleanups` name)
 * removed. Returns the browser's getter (launched in beforeAll).
 */
export function useBrowser(...cleanups: (() => void)[]): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterEach(async () => {
    await stopUis()
    cleanupStateDirs()
    for (const cleanup of cleanups) cleanup()
  })
  afterAll(async () => {
    await browser?.close()
  })
  return () => browser!
}

/** A browser context that opened the printed URL: it holds the session cookie. */
export async function signedIn(browser: Browser, ui: UiProcess, opts: {locale?: string} = {}): Promise<BrowserContext> {
  const context = await browser.newContext({viewport: {width: 1280, height: 800}, ...(opts.locale ? {locale: opts.locale} : {})})
  contexts.push(context)
  context.on('page', (page) => page.on('dialog', (dialog) => void dialog.accept()))
  const page = await context.newPage()
  await page.goto(ui.url)
  await page.close()
  return context
}

/** Closes the browser contexts and Ctrl-Cs the servers the test opened. */
export async function stopUis(): Promise<void> {
  await Promise.all(contexts.splice(0).map((context) => context.close().catch(() => {})))
  await Promise.all(running.splice(0).map((ui) => ui.interrupt()))
}

/** A raw HTTP request, with any Host header: what a browser cannot be made to send. */
export function rawRequest(
  ui: UiProcess,
  opts: {path: string; method?: string; headers?: Record<string, string>; body?: string},
): Promise<{status: number; headers: Record<string, string | string[] | undefined>; body: string}> {
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port: ui.port, path: opts.path, method: opts.method ?? 'GET', headers: opts.headers}, (res) => {
      let body = ''
      res.on('data', (data: Buffer) => (body += data.toString()))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, body}))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

export const sessionCookie = (ui: UiProcess) => `drover_ui_${ui.port}=${ui.token}`
