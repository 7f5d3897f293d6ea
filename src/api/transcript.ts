// An agent's output read as a transcript (assistant text, tool calls and
// results, errors, the final result): for front-ends that show it to people.

export {transcriptLines, type TranscriptPaint, type TranscriptStyle} from './transcript-lines.js'
export {shortArgs, transcriptItems, type TranscriptItem} from '../agents/transcript.js'
