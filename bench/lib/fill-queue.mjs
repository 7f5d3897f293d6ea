// Puts COUNT tasks into QUEUE of a state dir through the library API, the
// queue paused first so none of them runs: `fill-queue.mjs STATE_DIR QUEUE COUNT`.
import {openStateDir} from '../../dist/api/index.js'

const [stateDir, queue, count] = process.argv.slice(2)
const drover = await openStateDir(stateDir)
await drover.pauseQueue(queue)
for (let i = 0; i < Number(count); i++) await drover.start({command: ['true'], queue})
