// Entry of a thread deleting a big prune's claimed trees (trash-threads.ts
// starts it): it takes batches and answers each one. Nothing else lives
// here, so importing tree-delete.ts never makes a listener.

import {parentPort} from 'node:worker_threads'
import {deleteBatch, type TrashBatch} from './tree-delete.js'

parentPort!.on('message', (batch: TrashBatch) => parentPort!.postMessage(deleteBatch(batch)))
