// Bytes handed on in pieces of about a megabyte: many small pieces (100,000
// task views) are copied into one, so the writer below makes one call per
// megabyte; a piece that is large already goes on as it is, without a copy.

const CHUNK = 1 << 20

export class ChunkedWriter {
  private chunk = Buffer.allocUnsafe(CHUNK)
  private used = 0

  constructor(private readonly write: (chunk: Buffer) => void) {}

  /** Hands on `bytes` from `start` to `end`, after whatever came before. */
  put(bytes: Buffer, start = 0, end = bytes.length): void {
    const length = end - start
    if (length >= CHUNK / 2) {
      this.flush()
      this.write(bytes.subarray(start, end))
      return
    }
    if (this.used + length > CHUNK) this.flush()
    if (length === 1) this.chunk[this.used++] = bytes[start] // a comma or a bracket, without a copy's call
    else this.used += bytes.copy(this.chunk, this.used, start, end)
  }

  /** Hands on what is held; the pieces given so far are out once this returns. */
  flush(): void {
    if (this.used === 0) return
    this.write(this.chunk.subarray(0, this.used))
    // a new chunk: the writer may hold on to the one it was given
    this.chunk = Buffer.allocUnsafe(CHUNK)
    this.used = 0
  }
}
