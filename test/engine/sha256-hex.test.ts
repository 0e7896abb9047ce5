import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sha256Hex } from '../../mocks/engine/secrets.ts'

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

describe('sha256Hex', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ])('gives the FIPS 180-4 digest of %j', (text, want) => {
    expect(sha256Hex(text)).toBe(want)
  })

  it('agrees with node:crypto at every length around the block boundaries, ASCII and multi-byte', () => {
    for (let length = 0; length <= 200; length++) {
      const ascii = 'sk-svc-0123456789abcdefghijklmnopqrstuvwxyz'.repeat(5).slice(0, length)
      const multiByte = 'é€😀k'.repeat(length).slice(0, length)
      expect(sha256Hex(ascii)).toBe(nodeSha256(ascii))
      expect(sha256Hex(multiByte)).toBe(nodeSha256(multiByte))
    }
  })
})
