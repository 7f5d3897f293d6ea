// Reading agents' JSON events safely: every field may be missing or of
// another type in another version, so nothing is trusted without a check.

export const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null)
/** a non-empty string, else null. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
export const add = (a: number | null, b: number | null): number | null => (a === null && b === null ? null : (a ?? 0) + (b ?? 0))
export const minus = (a: number | null, b: number | null): number | null => (a === null ? null : Math.max(0, a - (b ?? 0)))
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

// One line of an error is what a status line can show; the rest is in output.log.
const ERROR_CHARS = 500

export function clip(text: string): string {
  return text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}…` : text
}

export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300)
export const iso = (ms: number | null): string | null => (ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString())
