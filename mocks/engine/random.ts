const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `length` base62 characters from the CSPRNG (Web Crypto), without modulo bias. */
export function randomBase62(length: number): string {
  let out = ''
  const buffer = new Uint8Array(Math.max(16, length * 2))
  while (out.length < length) {
    crypto.getRandomValues(buffer)
    for (const byte of buffer) {
      // 248 = 62 * 4: bytes above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62]
      if (out.length === length) break
    }
  }
  return out
}

/** A new identifier with its type prefix, e.g. `agt_8fK2mQx7Lr3Np9Ts`. */
export function newId(prefix: string, length = 16): string {
  return `${prefix}_${randomBase62(length)}`
}
