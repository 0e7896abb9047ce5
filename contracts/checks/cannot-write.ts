import { UNKNOWN_IDS } from './fixtures.ts'
import type { CheckCallInput } from './types.ts'

const NEVER_ISSUED = new Set(Object.values(UNKNOWN_IDS))

const isJson = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/**
 * Whether a request with a method that writes (POST, PATCH, DELETE) cannot change anything on any
 * implementation, so that a read-only run (no `--destructive`) may send it. "A correct implementation
 * refuses it" is not enough: a faulty one may execute what a correct one refuses. So the request itself must
 * leave nothing to write with, whatever the target does with it. Either
 * - it carries no credentials at all (no Authorization header, no key anywhere in the URL or the headers) and
 *   no body: it acts for no account, so no account's data can change, and it brings no content; or
 * - it names, as the last segment of its path, one of the suite's IDs that no implementation holds
 *   (`UNKNOWN_IDS`: shaped like real IDs, but IDs are chosen by the platform, never by a client; the
 *   integration slug is outside the contract's fixed catalogue), and it carries no JSON: no body at all, or a
 *   text that is not JSON, from which an API of JSON objects can read no field. A DELETE of an object that does
 *   not exist deletes nothing; a PATCH or a POST to it with nothing readable changes nothing, even on an
 *   implementation that would create an object on PATCH. The checks that send them also read the object by its
 *   ID first when its collection can be created through the API, and go on only on a 404
 *   (`writes-refused.ts`).
 * Never: PUT (create or replace, by definition), a write to a collection path with credentials (a POST
 * creates; another method may act on every object of the collection), a JSON body with credentials.
 */
export function cannotWrite(input: CheckCallInput, secrets: readonly string[]): boolean {
  const method = input.method.toUpperCase()
  if (!['POST', 'PATCH', 'DELETE'].includes(method) || input.json !== undefined) return false
  const path = input.path.split('?')[0] ?? ''
  const carried = [input.path, ...Object.values(input.headers ?? {})]
  const anonymous =
    input.key === null &&
    input.authorization === undefined &&
    !carried.some((text) =>
      secrets.some((secret) => text.includes(secret) || text.includes(encodeURIComponent(secret))),
    )
  if (anonymous && input.body === undefined) return true
  const last = path.split('/').at(-1) ?? ''
  let id: string
  try {
    id = decodeURIComponent(last)
  } catch {
    return false
  }
  return NEVER_ISSUED.has(id) && (input.body === undefined || !isJson(input.body))
}
