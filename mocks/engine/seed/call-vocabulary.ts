import { type ContractFaker, enumValue } from './contract-faker.ts'
import { type Prng, weightedPicker } from './prng.ts'

/**
 * The call-log values the seed's rules name, each checked to be in the contract's enums (`CallStatus`,
 * `CallEndReason`, `CallDirection`, the `channel` enum), and how often each comes up.
 */
export function callVocabulary(faker: ContractFaker) {
  const schemas = '#/components/schemas'
  const status = faker.enumOf(`${schemas}/CallStatus`)
  const reason = faker.enumOf(`${schemas}/CallEndReason`)
  const channel = faker.enumOf(`${schemas}/CallLog/properties/channel`)
  const direction = faker.enumOf(`${schemas}/CallDirection`)
  const s = <T extends string>(value: T) => enumValue(status, value)
  const r = <T extends string>(value: T) => enumValue(reason, value)
  const S = {
    completed: s('completed'),
    noAnswer: s('no_answer'),
    busy: s('busy'),
    failed: s('failed'),
    canceled: s('canceled'),
  }
  const R = {
    customer: r('customer_ended'),
    agent: r('agent_ended'),
    maxDuration: r('max_duration_reached'),
    silence: r('silence_timeout'),
    error: r('error'),
    voicemail: r('voicemail'),
  }
  return {
    status: S,
    reason: R,
    phone: enumValue(channel, 'phone'),
    web: enumValue(channel, 'web'),
    inbound: enumValue(direction, 'inbound'),
    outbound: enumValue(direction, 'outbound'),
    /** Final statuses of inbound phone calls, outbound calls and web calls. */
    inboundStatus: weightedPicker([S.completed, S.failed, S.canceled, S.noAnswer], [90, 3, 5, 2]),
    outboundStatus: weightedPicker(
      [S.completed, S.noAnswer, S.busy, S.failed, S.canceled],
      [60, 22, 8, 4, 6],
    ),
    webStatus: weightedPicker([S.completed, S.failed, S.canceled], [92, 4, 4]),
    /** Who ended a completed conversation. */
    endReason: weightedPicker([R.customer, R.agent, R.silence], [55, 40, 5]) as (prng: Prng) => string,
  }
}

/** The call-log vocabulary of one contract. */
export type CallVocabulary = ReturnType<typeof callVocabulary>
