// An agent's output read as a transcript (assistant text, tool calls and
// results, errors, the final result): for front-ends that show it to people.
// `excerpt` cuts a long tool result the way every view cuts it.

export {transcriptLines, type TranscriptPaint, type TranscriptStyle} from './transcript-lines.js'
export {shortArgs, transcriptItems, type TranscriptItem} from '../agents/transcript.js'
export {excerpt, looksLikeError, type ExcerptPart} from '../agents/excerpt.js'
