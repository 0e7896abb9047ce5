/** Round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
])

/** Initial hash: the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

const encoder = new TextEncoder()
const schedule = new Int32Array(64)
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n))

/** UTF-8 bytes of `text`; ASCII (every key) is copied without the encoder. */
function utf8(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f) return encoder.encode(text)
    bytes[i] = code
  }
  return bytes
}

const wordHex = (word: number) =>
  (HEX[word >>> 24] as string) +
  (HEX[(word >>> 16) & 0xff] as string) +
  (HEX[(word >>> 8) & 0xff] as string) +
  (HEX[word & 0xff] as string)

/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as lowercase hex. Synchronous and in plain
 * JavaScript, so it runs the same in Node and in browsers; for a key (one 64-byte block) it costs a
 * few microseconds, where `crypto.subtle.digest` costs a round trip to a worker thread.
 */
export function sha256Hex(text: string): string {
  const bytes = utf8(text)
  const blocks = (bytes.length + 9 + 63) >>> 6
  const padded = new Uint8Array(blocks * 64)
  padded.set(bytes)
  padded[bytes.length] = 0x80
  const view = new DataView(padded.buffer)
  const bits = bytes.length * 8
  view.setUint32(padded.length - 8, Math.floor(bits / 0x1_0000_0000))
  view.setUint32(padded.length - 4, bits >>> 0)

  let h0 = H0[0] as number
  let h1 = H0[1] as number
  let h2 = H0[2] as number
  let h3 = H0[3] as number
  let h4 = H0[4] as number
  let h5 = H0[5] as number
  let h6 = H0[6] as number
  let h7 = H0[7] as number
  const w = schedule
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getInt32(offset + i * 4)
    for (let i = 16; i < 64; i++) {
      const w15 = w[i - 15] as number
      const w2 = w[i - 2] as number
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3)
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10)
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0
    }
    let a = h0
    let b = h1
    let c = h2
    let d = h3
    let e = h4
    let f = h5
    let g = h6
    let h = h7
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
      const ch = (e & f) ^ (~e & g)
      const t1 = (h + s1 + ch + (K[i] as number) + (w[i] as number)) | 0
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
      const maj = (a & b) ^ (a & c) ^ (b & c)
      const t2 = (s0 + maj) | 0
      h = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = b
      b = a
      a = (t1 + t2) | 0
    }
    h0 = (h0 + a) | 0
    h1 = (h1 + b) | 0
    h2 = (h2 + c) | 0
    h3 = (h3 + d) | 0
    h4 = (h4 + e) | 0
    h5 = (h5 + f) | 0
    h6 = (h6 + g) | 0
    h7 = (h7 + h) | 0
  }
  return (
    wordHex(h0) +
    wordHex(h1) +
    wordHex(h2) +
    wordHex(h3) +
    wordHex(h4) +
    wordHex(h5) +
    wordHex(h6) +
    wordHex(h7)
  )
}
