// Long output for a person goes through a pager on a terminal, as git does:
// $DROVER_PAGER, else $PAGER, else `less`, with LESS=FRX unless set (quit at
// once when it fits one screen, pass colours, leave the screen as it was).
// An empty pager or `cat` means none; a pager that cannot start is no pager,
// and the text is written as it is. Piped output never pages.

import {spawn} from 'node:child_process'

export function pagerCommand(env: NodeJS.ProcessEnv = process.env): string | null {
  const chosen = env.DROVER_PAGER ?? env.PAGER ?? 'less'
  return chosen.trim() === '' || chosen.trim() === 'cat' ? null : chosen
}

function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())))
}

/** Writes text to stdout, through the pager when `page` (a terminal); resolves when the pager has exited. */
export async function pageOut(text: string, page: boolean): Promise<void> {
  const pager = page ? pagerCommand() : null
  if (pager === null || text === '') return writeOut(text)
  const started = await new Promise<boolean>((resolve) => {
    // through the shell, as git runs it: PAGER may carry its own arguments ("less -S")
    const child = spawn(pager, {shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: {...process.env, LESS: process.env.LESS ?? 'FRX', LV: process.env.LV ?? '-c'}})
    child.once('error', () => resolve(false))
    child.once('spawn', () => {
      // the reader quitting early (q in less) closes the pipe: not an error
      child.stdin.on('error', () => {})
      child.stdin.end(text)
    })
    child.once('exit', () => resolve(true))
  })
  if (!started) await writeOut(text)
}
