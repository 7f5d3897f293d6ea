// Puts COUNT tasks into QUEUE of a state dir through the library API, the
// queue made (limit 1) and paused first so none of them runs:
// `fill-queue.mjs STATE_DIR QUEUE COUNT`.
import {openStateDir} from '../../dist/api/index.js'

const [stateDir, queue, count] = process.argv.slice(2)
const drover = await openStateDir(stateDir)
// pause acts only on a queue that exists (a typo must not make a paused queue)
await drover.setQueue(queue, {parallel: 1})
await drover.pauseQueue(queue)
for (let i = 0; i < Number(count); i++) await drover.start({command: ['true'], queue})
