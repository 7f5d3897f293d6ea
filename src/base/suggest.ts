// "Did you mean …?" for what a person mistypes: command names, flags and task
// names. One edit-distance rule for all, so the CLI never suggests one way for
// commands and another for flags.

/** Levenshtein distance: insertions, deletions and substitutions of one character each. */
export function distance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length]
}

/**
 * The closest candidate, or null when none is close: a prefix of 2+ characters
 * counts as exact ('lo' → 'logs'), otherwise at most 2 edits (a third of the
 * word for long ones), so 'staus' finds 'status' but 'x' finds nothing.
 */
export function suggest(typed: string, candidates: readonly string[]): string | null {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  let best: {word: string; d: number} | null = null
  for (const word of candidates) {
    const prefix = word.startsWith(typed) && typed.length >= 2
    // a word whose length is further off than the limit cannot be close: skipped unmeasured (task names: 100,000 of them)
    if (!prefix && Math.abs(word.length - typed.length) > limit) continue
    const d = prefix ? 0 : distance(typed, word)
    if (!best || d < best.d) best = {word, d}
  }
  return best && best.d <= limit ? best.word : null
}
