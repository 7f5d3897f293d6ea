// The command-line value parsers: every accepted and refused form the docs promise, plus
// properties that no string whatever can make a parser fail with anything but a usage error.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {DroverError, ExitCode} from '../../src/base/errors.js'
import {
  formatBytes,
  formatDuration,
  isValidTaskName,
  parseDuration,
  parseEnvAssignment,
  parseCount,
  parseSince,
  parseSize,
  parseTaskName,
  parseTaskRef,
} from '../../src/base/parse.js'

const S = 1000
const M = 60 * S
const H = 60 * M
const D = 24 * H
const W = 7 * D
const KIB = 1024

/** The error `fn` throws; fails the test if it returns instead. */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw, got a return')
}

/** Asserts `fn` throws a usage error (exit 2) with a one-line message, and returns the message. */
function usage(fn: () => unknown): string {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(DroverError)
  const e = error as DroverError
  expect(e.exitCode).toBe(ExitCode.usage)
  expect(e.message).not.toMatch(/[\n\r\u2028\u2029]/)
  return e.message
}

/** Runs `fn` on `input`: either `valid` holds for its result, or it threw a one-line usage error. */
function returnsOrUsage<T>(fn: (s: string) => T, input: string, valid: (value: T) => boolean): boolean {
  let value: T
  try {
    value = fn(input)
  } catch (error) {
    if (!(error instanceof DroverError) || error.exitCode !== ExitCode.usage) return false
    if (/[\n\r\u2028\u2029]/.test(error.message)) return false
    return true
  }
  return valid(value)
}

// Any string: printable ASCII, full graphemes, any code point, and raw UTF-16 with lone surrogates.
const anyString = fc.oneof(
  fc.string(),
  fc.string({unit: 'grapheme', maxLength: 30}),
  fc.string({unit: 'binary', maxLength: 30}),
  fc.string({unit: 'binary-ascii', maxLength: 30}),
  fc.string({unit: fc.integer({min: 0, max: 0xffff}).map((c) => String.fromCharCode(c)), maxLength: 30}),
)
// Near misses: strings glued from the grammar's own pieces reach the deep branches far more
// often than random text does.
const pieces = ['0', '1', '9', '00', '1.5', '.', '-', '+', 'e', 'E', ' ', 'ms', 's', 'm', 'h', 'd', 'w', 'M', 'x',
  'b', 'k', 'KiB', 'mb', 'G', 'TiB', 'Infinity', 'NaN', '9'.repeat(20), '=', '_', 'a', 'Z', '/', '..', '\0', '\n', 'é']
const nearMiss = fc.array(fc.constantFrom(...pieces), {maxLength: 8}).map((parts) => parts.join(''))
const fuzz = fc.oneof(anyString, nearMiss)

const RUNS = {numRuns: 2000}

describe('parseDuration', () => {
  it.each([
    ['90s', 90 * S],
    ['30m', 30 * M],
    ['2h', 2 * H],
    ['1d', D],
    ['1w', W],
    ['500ms', 500],
    ['1h30m', H + 30 * M],
    ['1w2d3h4m5s6ms', W + 2 * D + 3 * H + 4 * M + 5 * S + 6],
    ['1.5h', 1.5 * H],
    ['0.5s', 500],
    ['1.0005s', 1001], // rounds to the nearest ms
    ['010s', 10 * S],
    ['2h05m', 2 * H + 5 * M],
    [' 5m ', 5 * M],
  ])('%j is %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms)
  })

  it.each([
    '-5s', '-5', '5x', '1e309s', '1e3s', '1E3', 'Infinity', '-Infinity', 'NaN', '', ' ', '\t\n', 's', 'ms',
    '1.s', '.5s', '+5s', '5 s', '1h 30m', '1H', '1M', '5sec', '0x10s', '1_000s', '30m1h', '1h1h', '1s500', '٣s',
    '1,5h', '5s\0',
  ])('refuses %j', (input) => {
    usage(() => parseDuration(input, '--timeout'))
  })

  it('refuses a bare number (no unit) with a hint, except 0 and where bare seconds are the convention', () => {
    for (const bare of ['7', '10', '1.5', ' 30 ']) {
      const text = bare.trim()
      expect(usage(() => parseDuration(bare, '--older-than', {allowZero: true}))).toBe(
        `--older-than: '${bare}' has no unit: say ${text}d, ${text}h, ${text}m or ${text}s`,
      )
    }
    expect(parseDuration('0', '--older-than', {allowZero: true})).toBe(0)
    expect(parseDuration('10', '--time', {bareSeconds: true})).toBe(10 * S)
    expect(parseDuration('1.5', '--time', {bareSeconds: true})).toBe(1500)
  })

  it('names the flag and the value, in one line', () => {
    expect(usage(() => parseDuration('5x', '--timeout'))).toBe(
      "--timeout: invalid duration '5x' (use e.g. 90s, 30m, 2h, 1h30m)",
    )
    expect(usage(() => parseDuration('-5s', '--timeout'))).toMatch(/^--timeout: .*negative.*'-5s'/)
    expect(usage(() => parseDuration('5x'))).toMatch(/^invalid duration '5x'/)
    expect(usage(() => parseDuration('1\n2', '--every'))).toContain('\\u000a')
  })

  it('shortens a long value in the message', () => {
    const message = usage(() => parseDuration('x'.repeat(1000), '--timeout'))
    expect(message).toContain(`'${'x'.repeat(40)}…'`)
    expect(message.length).toBeLessThan(120)
  })

  it('refuses zero unless allowZero', () => {
    for (const zero of ['0', '0s', '0ms', '0h0m', '0.0', '0.4ms']) {
      expect(usage(() => parseDuration(zero, '--delay'))).toMatch(/greater than zero/)
      expect(parseDuration(zero, '--delay', {allowZero: true})).toBe(0)
    }
    expect(parseDuration('5s', '--delay', {allowZero: true})).toBe(5 * S)
  })

  it('refuses values past Number.MAX_SAFE_INTEGER ms, and non-finite ones', () => {
    expect(usage(() => parseDuration('9'.repeat(400) + 's'))).toMatch(/too large/)
    expect(usage(() => parseDuration('99999999999999999999w'))).toMatch(/too large/)
    expect(usage(() => parseDuration(`${Number.MAX_SAFE_INTEGER + 2}ms`))).toMatch(/too large/)
    expect(parseDuration(`${Number.MAX_SAFE_INTEGER}ms`)).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('round-trips n followed by any unit, and refuses it exactly when it passes MAX_SAFE_INTEGER ms', () => {
    const units = {ms: 1, s: S, m: M, h: H, d: D, w: W}
    fc.assert(
      fc.property(fc.integer({min: 1, max: Number.MAX_SAFE_INTEGER}), fc.constantFrom(...Object.entries(units)), (n, [unit, ms]) => {
        if (n * ms <= Number.MAX_SAFE_INTEGER) expect(parseDuration(`${n}${unit}`)).toBe(n * ms)
        else expect(usage(() => parseDuration(`${n}${unit}`))).toMatch(/too large/)
      }),
    )
    fc.assert(
      fc.property(fc.integer({min: 1, max: 14_000_000}), fc.constantFrom(...Object.entries(units)), (n, [unit, ms]) => {
        expect(parseDuration(`${n}${unit}`)).toBe(n * ms)
      }),
    )
  })

  it('adds up compounds in largest-first order', () => {
    fc.assert(
      fc.property(
        fc.tuple(...[W, D, H, M, S, 1].map(() => fc.option(fc.integer({min: 0, max: 10_000}), {nil: undefined}))),
        (counts) => {
          const units: Array<[string, number]> = [['w', W], ['d', D], ['h', H], ['m', M], ['s', S], ['ms', 1]]
          const used = units.flatMap(([unit, ms], i) => (counts[i] === undefined ? [] : [[`${counts[i]}${unit}`, counts[i]! * ms] as const]))
          fc.pre(used.length > 0)
          const text = used.map(([t]) => t).join('')
          const expected = used.reduce((sum, [, ms]) => sum + ms, 0)
          expect(parseDuration(text, undefined, {allowZero: true})).toBe(expected)
        },
      ),
    )
  })

  it('for any string, returns a safe integer ms or throws a usage error', () => {
    for (const allowZero of [false, true]) {
      fc.assert(
        fc.property(fuzz, (s) =>
          returnsOrUsage((x) => parseDuration(x, '--timeout', {allowZero}), s, (ms) =>
            Number.isSafeInteger(ms) && (allowZero ? ms >= 0 : ms > 0),
          ),
        ),
        RUNS,
      )
    }
  })
})

describe('parseSince', () => {
  // 2026-12-02 10:30:00 local
  const now = new Date(2026, 11, 2, 10, 30, 0).getTime()
  it.each([
    ['10m', now - 600_000],
    ['05:00', new Date(2026, 11, 2, 5, 0).getTime()],
    ['9:15:30', new Date(2026, 11, 2, 9, 15, 30).getTime()],
    ['23:00', new Date(2026, 11, 1, 23, 0).getTime()], // the latest 23:00 not in the future: yesterday's
    ['2026-12-01', new Date(2026, 11, 1).getTime()], // local midnight, not UTC's
    ['2026-12-01 05:00', new Date(2026, 11, 1, 5, 0).getTime()],
    ['2026-12-01T05:00', new Date(2026, 11, 1, 5, 0).getTime()],
    ['2026-12-01T05:00:00Z', Date.UTC(2026, 11, 1, 5, 0)],
    ['2026-12-01T05:00+02:00', Date.UTC(2026, 11, 1, 3, 0)],
  ])('%j', (input, ms) => expect(parseSince(input, '--since', now)).toBe(ms))

  it.each(['25:00', '10:60', '2026-13-01', '2026-12-03', 'yesterday', ''])('refuses %j (exit 2)', (input) => {
    expect(() => parseSince(input, '--since', now)).toThrow(expect.objectContaining({exitCode: 2, message: expect.stringMatching(/^--since: /)}))
  })
})

describe('parseCount (token budgets)', () => {
  it.each([
    ['2M', 2_000_000],
    ['500k', 500_000],
    ['500K', 500_000],
    ['1.5m', 1_500_000],
    ['1g', 1_000_000_000],
    ['1B', 1_000_000_000],
    ['40000', 40_000],
    [' 2 M ', 2_000_000],
  ])('%j is %d', (input, count) => expect(parseCount(input)).toBe(count))

  it.each(['0', '0k', '-1', '2MB', '2Mi', 'k', '', '1e6', '2x', '9'.repeat(30) + 'g'])('refuses %j with exit 2, naming the flag', (input) => {
    expect(() => parseCount(input, '--max-tokens')).toThrow(expect.objectContaining({exitCode: 2, message: expect.stringMatching(/^--max-tokens: /)}))
  })
})

describe('parseSize', () => {
  it.each([
    ['500MB', 500 * KIB ** 2],
    ['1GiB', KIB ** 3],
    ['10k', 10 * KIB],
    ['10K', 10 * KIB],
    ['10KB', 10 * KIB],
    ['10kib', 10 * KIB],
    ['1.5G', 1.5 * KIB ** 3],
    ['2t', 2 * KIB ** 4],
    ['2TB', 2 * KIB ** 4],
    ['1024', 1024],
    ['1024b', 1024],
    ['1024B', 1024],
    ['1.5 KiB', 1536],
    ['0.5', 1], // rounds to the nearest byte
    [' 3m ', 3 * KIB ** 2],
  ])('%j is %d bytes', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes)
  })

  it.each([
    '-1', '-5MB', '5x', '5KiBs', '5kk', '5 p', '1e3', '1e309k', 'Infinity', 'NaN', '', '   ', 'MB', '.5k', '1.k',
    '+5k', '0x10', '5 k b', '1,5M', '5PB', '99999999999999999999TiB', '9'.repeat(400),
  ])('refuses %j', (input) => {
    usage(() => parseSize(input, '--max-log'))
  })

  it('names the flag and the value', () => {
    expect(usage(() => parseSize('5x', '--max-log'))).toMatch(/^--max-log: invalid size '5x'/)
    expect(usage(() => parseSize('99999999999999999999TiB', '--max-log'))).toMatch(/^--max-log: .*too large/)
    expect(usage(() => parseSize('-5MB', '--max-log'))).toMatch(/negative/)
  })

  it('refuses zero unless allowZero', () => {
    for (const zero of ['0', '0b', '0KiB', '0.0', '0.4']) {
      expect(usage(() => parseSize(zero))).toMatch(/greater than zero/)
      expect(parseSize(zero, undefined, {allowZero: true})).toBe(0)
    }
  })

  it('stops at Number.MAX_SAFE_INTEGER', () => {
    expect(parseSize('8191TiB')).toBe(8191 * KIB ** 4)
    usage(() => parseSize('8192TiB'))
    expect(parseSize(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER)
    usage(() => parseSize(String(Number.MAX_SAFE_INTEGER + 2)))
  })

  it('round-trips n followed by any unit, in any case', () => {
    const units: Array<[string, number]> = [
      ['', 1], ['b', 1], ['k', KIB], ['kb', KIB], ['kib', KIB], ['m', KIB ** 2], ['mb', KIB ** 2], ['mib', KIB ** 2],
      ['g', KIB ** 3], ['gb', KIB ** 3], ['gib', KIB ** 3], ['t', KIB ** 4], ['tb', KIB ** 4], ['tib', KIB ** 4],
    ]
    fc.assert(
      fc.property(fc.integer({min: 1, max: 8191}), fc.constantFrom(...units), fc.boolean(), (n, [unit, bytes], upper) => {
        expect(parseSize(`${n}${upper ? unit.toUpperCase() : unit}`)).toBe(n * bytes)
      }),
    )
  })

  it('reads back what formatBytes writes, to within its one decimal', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: 1000 * KIB ** 4}), (bytes) => {
        const back = parseSize(formatBytes(bytes))
        expect(Math.abs(back - bytes)).toBeLessThanOrEqual(Math.max(0.05 * bytes, 1))
      }),
    )
  })

  it('for any string, returns a safe integer byte count or throws a usage error', () => {
    for (const allowZero of [false, true]) {
      fc.assert(
        fc.property(fuzz, (s) =>
          returnsOrUsage((x) => parseSize(x, '--max-log', {allowZero}), s, (b) =>
            Number.isSafeInteger(b) && (allowZero ? b >= 0 : b > 0),
          ),
        ),
        RUNS,
      )
    }
  })
})

describe('task names', () => {
  it.each(['a', 'build', 'Build-2', 'a.b_c-d', 'x'.repeat(64), 'z9', 'release.v1.2', 'console', 'com10', 'nul_x'])(
    'accepts %j',
    (name) => {
      expect(isValidTaskName(name)).toBe(true)
      expect(parseTaskName(name)).toBe(name)
    },
  )

  it.each([
    '', '.', '..', '../x', 'a/b', 'a\\b', '1abc', '_a', '-a', '.a', 'x'.repeat(65), 'x'.repeat(1000), 'tâche',
    'задача', 'a b', 'a\0', 'a\n', 'a:b', 'a*', 'build.', 'con', 'CON', 'nul.log', 'Com1', 'lpt9.txt', 'aux',
  ])('refuses %j', (name) => {
    expect(isValidTaskName(name)).toBe(false)
    expect(usage(() => parseTaskName(name))).toMatch(/^invalid task name '/)
  })

  it('states the rule', () => {
    expect(usage(() => parseTaskName('1abc'))).toMatch(/1-64 ASCII letters, digits, '\.', '_' or '-', starting with a letter/)
    expect(usage(() => parseTaskName('con'))).toMatch(/reserved/)
    expect(usage(() => parseTaskName('build.'))).toMatch(/dot/)
  })

  it('for any string, agrees with parseTaskName and never yields a path-like name', () => {
    fc.assert(
      fc.property(fuzz, (s) => {
        const valid = isValidTaskName(s)
        const ok = returnsOrUsage(parseTaskName, s, (name) => name === s)
        if (!ok) return false
        if (!valid) return usage(() => parseTaskName(s)).startsWith('invalid task name')
        // No separator, drive colon, or leading dot can ever get through.
        return parseTaskName(s) === s && /^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(s)
      }),
      RUNS,
    )
  })
})

describe('parseTaskRef', () => {
  it.each([
    ['1', 1],
    ['7', 7],
    ['42', 42],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ])('%j is id %d', (input, id) => {
    expect(parseTaskRef(input)).toEqual({kind: 'id', id})
  })

  it.each(['build', 'a1', 'Deploy.prod', 'x'.repeat(64)])('%j is a name', (input) => {
    expect(parseTaskRef(input)).toEqual({kind: 'name', name: input})
  })

  it(':latest names the newest task and can never be a task name; near spellings are refused', () => {
    expect(parseTaskRef(':latest')).toEqual({kind: 'latest'})
    expect(() => parseTaskName(':latest')).toThrow()
    for (const near of [':Latest', ':last', 'latest:', ' :latest', '@latest']) usage(() => parseTaskRef(near))
    // a task may be named `latest`: that is its name, not the newest task
    expect(parseTaskRef('latest')).toEqual({kind: 'name', name: 'latest'})
    expect(usage(() => parseTaskRef('@latest'))).toMatch(/:latest for the newest task/)
  })

  it.each([
    '', '0', '00', '007', '-1', '+1', '0x1', '1e9', '1.5', ' 7', '7 ', '..', '.', '../x', '/etc/passwd', 'a/b',
    String(Number.MAX_SAFE_INTEGER + 1), '9'.repeat(30), 'x'.repeat(65), 'x'.repeat(1000), 'tâche', 'задача',
    '٣', 'a\u0007', 'con',
  ])('refuses %j', (input) => {
    usage(() => parseTaskRef(input))
  })

  it('says what is wrong, echoing at most 40 characters', () => {
    expect(usage(() => parseTaskRef('../x'))).toMatch(/^invalid task id or name '\.\.\/x'/)
    expect(usage(() => parseTaskRef('007'))).toMatch(/^invalid task id '007'.*leading zeros/)
    expect(usage(() => parseTaskRef('9'.repeat(30)))).toMatch(/too large/)
    const long = usage(() => parseTaskRef('y'.repeat(1000)))
    expect(long).toContain(`'${'y'.repeat(40)}…'`)
    expect(long).not.toContain('y'.repeat(41))
    // A cut never splits a surrogate pair, and control characters are escaped.
    expect(usage(() => parseTaskRef('😀'.repeat(50)))).toContain(`'${'😀'.repeat(40)}…'`)
    expect(usage(() => parseTaskRef('a\u001b[2Jb'))).toContain('a\\u001b[2Jb')
  })

  it('round-trips every id', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: Number.MAX_SAFE_INTEGER}), (id) => {
        expect(parseTaskRef(String(id))).toEqual({kind: 'id', id})
      }),
    )
  })

  it('for any string, returns a valid id or name, or throws a usage error', () => {
    fc.assert(
      fc.property(fuzz, (s) =>
        returnsOrUsage(parseTaskRef, s, (ref) =>
          ref.kind === 'id'
            ? Number.isSafeInteger(ref.id) && ref.id >= 1 && String(ref.id) === s
            : ref.name === s && isValidTaskName(ref.name),
        ),
      ),
      RUNS,
    )
  })
})

describe('parseEnvAssignment', () => {
  it.each([
    ['A=b', ['A', 'b']],
    ['_x1=hello world', ['_x1', 'hello world']],
    ['EMPTY=', ['EMPTY', '']],
    ['URL=a=b=c', ['URL', 'a=b=c']],
    ['K==', ['K', '=']],
    ['U=tâche\nzwei', ['U', 'tâche\nzwei']],
  ])('%j', (input, pair) => {
    expect(parseEnvAssignment(input)).toEqual(pair)
  })

  it.each(['', 'A', '=b', '1A=b', 'A-B=c', 'A B=c', ' A=b', 'é=1', 'A\0=b', 'A=b\0c'])('refuses %j', (input) => {
    expect(usage(() => parseEnvAssignment(input))).toMatch(/^-e: /)
  })

  it('for any key and value, round-trips', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/),
        fc.string({unit: 'binary', maxLength: 30}).filter((v) => !v.includes('\0')),
        (key, value) => {
          expect(parseEnvAssignment(`${key}=${value}`)).toEqual([key, value])
        },
      ),
    )
  })

  it('for any string, returns a valid pair or throws a usage error', () => {
    fc.assert(
      fc.property(fuzz, (s) =>
        returnsOrUsage(parseEnvAssignment, s, ([key, value]) =>
          /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && `${key}=${value}` === s && !value.includes('\0'),
        ),
      ),
      RUNS,
    )
  })
})

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [0.5, '0s'],
    [1, '1ms'],
    [950, '950ms'],
    [999.9, '999ms'],
    [1000, '1s'],
    [45 * S, '45s'],
    [59_999, '59s'], // truncates: never '60s' or '1m00s' early
    [60 * S, '1m00s'],
    [3 * M + 12 * S, '3m12s'],
    [3 * M + 5 * S, '3m05s'],
    [59 * M + 59 * S + 999, '59m59s'],
    [H, '1h00m'],
    [2 * H + 5 * M + 30 * S, '2h05m'],
    [D, '1d00h'],
    [3 * D + 4 * H + 59 * M, '3d04h'],
    [400 * D, '400d00h'],
    [-5, '0s'],
    [Number.NaN, '?'],
    [Number.POSITIVE_INFINITY, '?'],
  ])('%d ms is %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })

  it('reads back with parseDuration, never above the input and within its last unit', () => {
    fc.assert(
      fc.property(fc.integer({min: 0, max: 10_000 * D}), (ms) => {
        const text = formatDuration(ms)
        const back = parseDuration(text, undefined, {allowZero: true})
        expect(back).toBeLessThanOrEqual(ms)
        const unit = ms < S ? 1 : ms < H ? S : ms < D ? M : H
        expect(ms - back).toBeLessThan(unit)
      }),
    )
  })
})

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1, '1 B'],
    [512, '512 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [20 * KIB ** 2, '20.0 MiB'],
    [KIB ** 3, '1.0 GiB'],
    [KIB ** 2 - 1, '1.0 MiB'], // never '1024.0 KiB'
    [5 * KIB ** 4, '5.0 TiB'],
    [3 * KIB ** 5, '3.0 PiB'],
    [-2048, '-2.0 KiB'],
    [-0.4, '0 B'],
    [Number.NaN, '?'],
  ])('%d is %j', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })

  it('always shows a number under 1024 with a known unit', () => {
    fc.assert(
      fc.property(fc.integer({min: 0, max: Number.MAX_SAFE_INTEGER}), (bytes) => {
        const match = /^(\d+(?:\.\d)?) (B|KiB|MiB|GiB|TiB|PiB|EiB)$/.exec(formatBytes(bytes))
        expect(match).not.toBeNull()
        expect(Number(match![1])).toBeLessThan(1024)
      }),
    )
  })
})
