// Reading a task's output a page at a time at a byte cursor (see
// tasks/output-page.ts): the shapes the API returns for it.

export type {OutputPage, PageOptions} from '../tasks/output-page.js'
export {DEFAULT_PAGE_BYTES} from '../tasks/output-page.js'
