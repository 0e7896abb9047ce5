import type { Expectation } from './receiver-checks.ts'
import type { DeliveryAnswer } from './receiver-target.ts'

/** What a delivery must get, in words: `a 4xx within 10 s for a signature that does not match`. */
export function expectation(expect: Expectation, what: string, timeoutMs: number): string {
  const within = `within ${timeoutMs / 1000} s`
  return expect === 'accept'
    ? `a 2xx ${within} for ${what} (no redirect)`
    : `a 4xx ${within} for ${what} (not a 2xx, not a 5xx, no redirect)`
}

/**
 * Grades a receiver's answer: undefined when it is right, else what happened in words. What must be accepted
 * gets a 2xx; what must be refused a 4xx (a 5xx says "try again later", and the platform would retry it as it
 * retries an outage); a redirect is wrong either way (the platform does not follow one); no answer within the
 * timeout is a failed delivery.
 */
export function gradeAnswer(expect: Expectation, answer: DeliveryAnswer): string | undefined {
  const { status } = answer
  const took = `in ${answer.durationMs.toFixed(0)} ms`
  if (status === undefined) return answer.error ?? 'no answer'
  if (status >= 300 && status < 400) {
    const location = answer.headers.location ? ` to ${answer.headers.location}` : ''
    return `${status} ${took}: a redirect${location} (the platform does not follow redirects)`
  }
  const success = status >= 200 && status < 300
  const clientError = status >= 400 && status < 500
  if (expect === 'accept') {
    if (success) return undefined
    if (clientError) return `${status} ${took}: refused a delivery it must acknowledge`
    if (status >= 500)
      return `${status} ${took}: a server error (the platform retries it, then marks the delivery failed)`
    return `${status} ${took}: not a 2xx`
  }
  if (clientError) return undefined
  if (success) return `${status} ${took}: acknowledged a delivery it must refuse`
  if (status >= 500)
    return `${status} ${took}: a server error, not a refusal (the platform would retry it as if the receiver were down)`
  return `${status} ${took}: not a 4xx`
}
