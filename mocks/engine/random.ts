const BASE62_CODES = [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'].map((c) =>
  c.charCodeAt(0),
)

/** CSPRNG bytes are drawn 4 KiB at a time: one Web Crypto call per ~150 request ids, not one per id. */
const POOL_SIZE = 4096
const pool = new Uint8Array(POOL_SIZE)
let next = POOL_SIZE

/** One byte from the CSPRNG (Web Crypto); each byte is handed out once and wiped from the pool. */
function randomByte(): number {
  if (next === POOL_SIZE) {
    crypto.getRandomValues(pool)
    next = 0
  }
  const byte = pool[next] as number
  pool[next++] = 0
  return byte
}

/**
 * `length` base62 characters from the CSPRNG (Web Crypto), without modulo bias; made as one flat string (a
 * request id is drawn on every request, and adding characters one by one made a string per character).
 */
export function randomBase62(length: number): string {
  const codes: number[] = new Array(length)
  for (let i = 0; i < length; ) {
    const byte = randomByte()
    // 248 = 62 * 4: bytes above it would favour the first characters.
    if (byte < 248) codes[i++] = BASE62_CODES[byte % 62] as number
  }
  return String.fromCharCode.apply(null, codes)
}

/** A new identifier with its type prefix, e.g. `agt_8fK2mQx7Lr3Np9Ts`. */
export function newId(prefix: string, length = 16): string {
  return `${prefix}_${randomBase62(length)}`
}
