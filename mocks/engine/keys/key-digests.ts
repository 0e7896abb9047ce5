import { sha256Hex } from '../secrets.ts'

/** Most digests of used keys kept by `keyDigests`; past it the memo starts again empty. */
const MAX_KEPT_DIGESTS = 1024

/**
 * The SHA-256 of key values, remembered for the values that were found to be keys: a client sends the same key
 * on every request, and hashing it is a good part of a small request's cost. A value's digest never changes,
 * so the memo is never stale; the key itself is looked up on every request (`find`), so that a revoked,
 * deleted or replaced key is seen at once. The values stay in this process's memory, never in the state.
 */
export function keyDigests() {
  let digests = new Map<string, string>()
  return {
    /** What `lookup` finds by the token's digest; the digest is remembered when it finds something. */
    find<T>(token: string, lookup: (digest: string) => T | undefined): T | undefined {
      const known = digests.get(token)
      const digest = known ?? sha256Hex(token)
      const found = lookup(digest)
      if (found !== undefined && known === undefined) {
        if (digests.size >= MAX_KEPT_DIGESTS) digests = new Map()
        digests.set(token, digest)
      }
      return found
    },
  }
}

export type KeyDigests = ReturnType<typeof keyDigests>
