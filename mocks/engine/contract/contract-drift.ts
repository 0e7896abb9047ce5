import type { EngineResponse } from '../types.ts'
import { createAnswerTexts } from './answer-texts.ts'
import type { Operation } from './router.ts'
import type { Validators } from './validators.ts'

/** Checking answers against their contract (on in tests), and who is told of a drift. */
export interface DriftCheck {
  checkResponses?: boolean
  onContractViolation?: (message: string) => void
}

/** The drift check of the engine's options (its two fields only). */
export function driftCheck({ checkResponses, onContractViolation }: DriftCheck): DriftCheck {
  return { checkResponses, onContractViolation }
}

/** Answers up to this many characters of JSON are remembered as conforming (larger ones are checked each time). */
const REMEMBERED_MAX_CHARS = 64 * 1024
/** Conforming answers remembered per operation and status; past it they are forgotten at once. */
const REMEMBERED_PER_STATUS = 64

/**
 * The JSON text of answers the check encoded, by body: an adapter sends the very text that was checked
 * instead of encoding the body again (`answerText`). A body is never changed once answered; one that is
 * replaced (an error body redacted) is a new object, encoded anew.
 */
const checkedTexts = new WeakMap<object, string>()
/** The texts of the answers checked (lists from remembered item texts: the same list is the same string). */
const texts = createAnswerTexts()
/** Texts of answers found to conform, by validators (a contract), operation and status: the same text conforms again. */
const conformingBy = new WeakMap<Validators, Map<string, Set<string>>>()

/** The JSON text of a body that is not a string: the one the drift check encoded, else a new one. */
export function answerText(body: unknown): string {
  return (body !== null && typeof body === 'object' && checkedTexts.get(body)) || JSON.stringify(body)
}

/**
 * What is wrong with an operation's answer against its contract, as one message naming the operation and up to
 * five problems (the listener is told of it), or undefined when the answer is allowed or checking is off.
 * What a client receives is the answer's JSON text: a text found to conform once is not checked again.
 */
export function contractDrift(
  validators: Validators,
  check: DriftCheck,
  operation: Operation,
  response: EngineResponse,
): string | undefined {
  if (!check.checkResponses) return undefined
  const { status } = response
  // A JSON answer the engine wrote as bytes itself (a capsule) is checked as the value it holds.
  const body =
    response.body instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(response.body)) : response.body
  const text =
    body !== null && typeof body === 'object' && body === response.body ? texts.of(body) : undefined
  let conforming = conformingBy.get(validators)
  if (!conforming) {
    conforming = new Map()
    conformingBy.set(validators, conforming)
  }
  const key = `${operation.operationId} ${status}`
  let known = conforming.get(key)
  if (text !== undefined) {
    checkedTexts.set(body as object, text)
    if (known?.has(text)) return undefined
  }
  const problems = validators.response(operation.operationId, operation.object, status, body)
  if (problems.length === 0) {
    if (text !== undefined && text.length <= REMEMBERED_MAX_CHARS) {
      if (!known || known.size >= REMEMBERED_PER_STATUS) {
        known = new Set()
        conforming.set(key, known)
      }
      known.add(text)
    }
    return undefined
  }
  const message = `Contract drift in ${operation.operationId} (${status}): ${problems.slice(0, 5).join('; ')}`
  check.onContractViolation?.(message)
  return message
}
