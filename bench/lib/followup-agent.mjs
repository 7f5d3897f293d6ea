// A claude-shaped agent for the follow-up case: `-p PROMPT` or `--resume ID -- PROMPT`,
// stream-json with its session id. Its first line says when it was printed
// and when this process began (performance.timeOrigin), its last when the run
// ended; the prompt's `sleep:MS` is how long the run works (default 100 ms),
// or `until:FILE` makes it work until that file exists.
// It prints a commander-style --help, which is what drover learns a resume from.

import {randomUUID} from 'node:crypto'
import {existsSync} from 'node:fs'

const argv = process.argv.slice(2)
if (argv.includes('--help')) {
  process.stdout.write(`Usage: claude [options] [prompt]

Options:
  -p, --print                 print the response and exit
  --output-format <format>    output format
  --verbose                   verbose output
  -r, --resume <id>           resume a session
  --session-id <uuid>         use this session id
  --settings <file>           settings file
  -h, --help                  display help
`)
  process.exit(0)
}
const at = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined)
const dash = argv.indexOf('--')
const prompt = dash !== -1 ? argv[dash + 1] : at('-p')
const session = at('--resume') ?? randomUUID()
const line = (event) => process.stdout.write(JSON.stringify({session_id: session, ...event}) + '\n')
line({type: 'system', subtype: 'init', firstOutputAt: performance.timeOrigin + performance.now(), timeOrigin: performance.timeOrigin})
const done = () => {
  line({type: 'result', subtype: 'success', is_error: false, num_turns: 1, result: 'done', total_cost_usd: 0, endedAt: performance.timeOrigin + performance.now()})
  process.exit(0)
}
const until = /until:(\S+)/.exec(prompt ?? '')?.[1]
if (until) {
  const poll = setInterval(() => existsSync(until) && (clearInterval(poll), done()), 10)
} else setTimeout(done, Number(/sleep:(\d+)/.exec(prompt ?? '')?.[1] ?? 100))
