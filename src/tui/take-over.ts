// `t` in top: `drover attach` on top's own terminal. Top steps aside (the
// normal screen, cooked keys, its signal handlers off) just before the
// agent's interactive session starts, so the session has the terminal and
// its Ctrl-C; when the person quits it, top takes the terminal back.

import type {Drover} from '../api/drover.js'
import type {Terminal} from './terminal.js'

export type TakeOverEnd = {text: string; tone: 'ok' | 'error'} | 'hung-up'

/** `drawing(false)` while the terminal is the session's; 'hung-up' when it was closed under it (nobody to draw for). */
export async function takeOver(drover: Drover, terminal: Terminal, id: number, drawing: (on: boolean) => void): Promise<TakeOverEnd> {
  let aside = false
  let hungUp = false
  const onHangUp = () => (hungUp = true)
  const stepAside = () => {
    aside = true
    drawing(false)
    terminal.stepAside()
    process.on('SIGHUP', onHangUp)
  }
  let end: TakeOverEnd
  try {
    const task = await drover.attach(id, {onOpening: stepAside})
    end = {text: `task ${id}: the attached session ended ${task.status}; r or f sends it back to the background`, tone: 'ok'}
  } catch (error) {
    end = {text: `take over task ${id}: ${(error as Error).message}`, tone: 'error'}
  }
  if (!aside) return end
  process.off('SIGHUP', onHangUp)
  drawing(true)
  return hungUp || !terminal.comeBack() ? 'hung-up' : end
}
