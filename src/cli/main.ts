// What bin/run.js hands the command line to: oclif's execute, taken from the
// same bundle as the commands (scripts/bundle-cli.mjs), so that one copy of
// oclif — its Config and caches — serves the whole run.

export {execute} from '@oclif/core/execute'
