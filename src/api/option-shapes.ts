// The shapes of the option objects a script hands the library, checked at run
// time: TypeScript's types vanish in a plain-JavaScript caller (or behind an
// `as`), and a string where argv belongs wrote a record every `list` showed
// as corrupt, while `{timeout: '5m'}` set no timeout at all. So every key is
// known and every value has its type before anything is written; a mistake is
// one usage error (exit 2) naming the key, with the name that was meant.

import {usageError} from '../base/errors.js'
import {suggest} from '../base/suggest.js'

/** What one key may hold (undefined is always allowed: the option is not given). */
export type Shape =
  | 'string'
  | 'boolean'
  | 'number'
  | 'number|null'
  | 'string|null'
  | 'boolean|string'
  | 'string[]'
  | 'ref[]'
  | 'env'
  | 'function'
  | readonly string[]
  | {readonly [key: string]: Shape}

const describe = (shape: Shape): string => {
  if (Array.isArray(shape)) return `one of ${shape.map((v) => JSON.stringify(v)).join(', ')}`
  if (typeof shape === 'object') return 'an object'
  switch (shape) {
    case 'string[]':
      return 'an array of strings'
    case 'ref[]':
      return 'an array of task ids or names'
    case 'env':
      return 'an object of string values'
    case 'number|null':
      return 'a number or null'
    case 'string|null':
      return 'a string or null'
    case 'boolean|string':
      return 'true or a branch name'
    default:
      return `a ${shape}`
  }
}

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`)

/** What was given instead, down to the first element of an array (or value of an object) that is not a string. */
function got(v: unknown, shape: Shape): string {
  if (Array.isArray(v)) {
    const i = v.findIndex((e) => typeof e !== 'string' && !(shape === 'ref[]' && typeof e === 'number'))
    return i === -1 ? 'an array' : `an array whose item ${i} is ${kind(v[i])}`
  }
  if (isPlainObject(v)) {
    const bad = Object.entries(v).find(([, e]) => typeof e !== 'string')
    return bad ? `${bad[0]}: ${kind(bad[1])}` : 'an object'
  }
  return kind(v)
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function fits(value: unknown, shape: Shape): boolean {
  if (Array.isArray(shape)) return typeof value === 'string' && shape.includes(value)
  if (typeof shape === 'object') return isPlainObject(value)
  switch (shape) {
    case 'string':
      return typeof value === 'string'
    case 'boolean':
      return typeof value === 'boolean'
    case 'number':
      return typeof value === 'number'
    case 'number|null':
      return value === null || typeof value === 'number'
    case 'string|null':
      return value === null || typeof value === 'string'
    case 'boolean|string':
      return typeof value === 'boolean' || typeof value === 'string'
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
    case 'ref[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')
    case 'env':
      return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string')
    case 'function':
      return typeof value === 'function'
    default:
      return false
  }
}

/**
 * Throws a usage error for the first key `shape` does not know (with the
 * closest known one) or the first value of the wrong type. `what` names the
 * object in the message (`start option`), `prefix` a nested object's key,
 * `renamed` the keys an older version took (`refs` → `tasks`).
 */
export function checkShape(
  value: unknown,
  shape: {readonly [key: string]: Shape},
  what: string,
  prefix = '',
  renamed: Record<string, string> = {},
): void {
  if (!isPlainObject(value)) throw usageError(`${what}s must be an object`)
  const known = Object.keys(shape)
  for (const [key, v] of Object.entries(value)) {
    const name = `${prefix}${key}`
    if (!Object.hasOwn(shape, key)) {
      const near = Object.hasOwn(renamed, key) ? renamed[key] : suggest(key, known)
      throw usageError(`unknown ${what} '${name}'${near ? ` (did you mean ${prefix}${near}?)` : ''}`)
    }
    if (v === undefined) continue
    const s = shape[key]
    if (!fits(v, s)) throw usageError(`${what} ${name} must be ${describe(s)}, got ${got(v, s)}`)
    if (typeof s === 'object' && !Array.isArray(s)) checkShape(v, s as {readonly [key: string]: Shape}, what, `${name}.`)
  }
}
