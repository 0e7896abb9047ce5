import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import type { webhooks } from '../openapi/generated/v1.types.ts'
import { checkExamples, checkSpectral } from '../scripts/check-contract.ts'
import type { CheckResult, Finding } from '../scripts/lib/check-result.ts'

// biome-ignore lint/suspicious/noExplicitAny: broken copies are built by mutating untyped YAML data
type Doc = any

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const V1 = join(ROOT, 'openapi/v1.yaml')
const EVENTS = ['call.started', 'call.ended', 'transcript.ready', 'call.analyzed']

let tempDir: string
let realV1: Doc
let baseline: Finding[]

beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'contract-webhooks-'))
  realV1 = parse(await readFile(V1, 'utf8'))
  baseline = (await checkSpectral(V1, 'v1')).failures
})
afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true })
})

async function brokenV1(mutate: (doc: Doc) => void): Promise<string> {
  const doc = structuredClone(realV1)
  mutate(doc)
  const dir = await mkdtemp(join(tempDir, 'v1-'))
  const file = join(dir, 'v1.yaml')
  await writeFile(file, stringify(doc))
  return file
}

const webhook = (doc: Doc, name = 'call.ended') => doc.webhooks[name].post

function newFailures(result: CheckResult): Finding[] {
  const known = new Set(baseline.map((finding) => `${finding.rule} ${finding.path}`))
  return result.failures.filter((finding) => !known.has(`${finding.rule} ${finding.path}`))
}

describe('the contract documents the call events as webhooks', () => {
  it('has one webhook per event type, each a POST of its event', () => {
    expect(Object.keys(realV1.webhooks).sort()).toEqual([...EVENTS].sort())
    expect(realV1.components.schemas.WebhookEvent.enum.sort()).toEqual([...EVENTS].sort())
  })

  it('generates types for them', () => {
    type Started = webhooks['call.started']['post']['requestBody']['content']['application/json']
    const event: Started =
      realV1.webhooks['call.started'].post.requestBody.content['application/json'].examples.inbound_phone
        .value
    expect(event.type).toBe('call.started')
  })
})

describe('Spectral project ruleset on webhooks', () => {
  it.each([
    {
      name: 'a webhook without operationId',
      rule: 'operation-id-camel-case',
      mutate: (doc: Doc) => delete webhook(doc).operationId,
    },
    {
      name: 'a webhook with two tags',
      rule: 'operation-single-tag',
      mutate: (doc: Doc) => {
        webhook(doc).tags = ['Webhooks', 'Call Logs']
      },
    },
    {
      name: 'a webhook without the webhook-signature header',
      rule: 'webhooks-document-signature',
      mutate: (doc: Doc) => {
        webhook(doc).parameters = webhook(doc).parameters.slice(0, 2)
      },
    },
    {
      name: 'a webhook whose event type is another',
      rule: 'webhooks-name-their-event',
      mutate: (doc: Doc) => {
        doc.components.schemas.CallEndedEvent.properties.type.const = 'call.started'
      },
    },
    {
      name: 'a webhook whose body is not an event envelope',
      rule: 'webhooks-name-their-event',
      mutate: (doc: Doc) => {
        const schema = doc.components.schemas.CallEndedEvent
        delete schema.properties.data
        schema.required = schema.required.filter((field: string) => field !== 'data')
      },
    },
    {
      name: "a webhook without the receiver's 2xx",
      rule: 'webhook-success-response',
      mutate: (doc: Doc) => {
        webhook(doc).responses = { '500': { description: 'Receiver failed.' } }
      },
    },
    {
      name: 'a webhook that asks for the API key',
      rule: 'webhook-no-api-key',
      mutate: (doc: Doc) => {
        webhook(doc).security = [{ bearerAuth: [] }]
      },
    },
  ])('fails $name ($rule)', async ({ rule, mutate }) => {
    const result = await checkSpectral(await brokenV1(mutate), 'v1')
    const rules = [...new Set(newFailures(result).map((finding) => finding.rule))]
    expect(rules).toEqual([rule])
  })

  it("does not ask a webhook's responses for Request-Id or the error envelope (they are the receiver's)", async () => {
    const file = await brokenV1((doc) => {
      webhook(doc).responses['400'] = { description: 'The receiver refused it.' }
    })
    expect(newFailures(await checkSpectral(file, 'v1'))).toEqual([])
  })
})

describe('example validation on webhooks', () => {
  it.each([
    {
      name: 'an event example whose call log has a status the event never carries',
      mutate: (doc: Doc) => {
        webhook(doc, 'call.started').requestBody.content[
          'application/json'
        ].examples.inbound_phone.value.data.object.status = 'completed'
      },
      want: /webhooks\["call\.started"\]\.post\.requestBody.*examples\.inbound_phone\.value: does not match/,
    },
    {
      name: 'an analyzed event without its analysis',
      mutate: (doc: Doc) => {
        webhook(doc, 'call.analyzed').requestBody.content[
          'application/json'
        ].examples.booked.value.data.object.analysis = null
      },
      want: /webhooks\["call\.analyzed"\].*examples\.booked\.value: does not match/,
    },
    {
      name: 'a webhook-id header example that is not an event id',
      mutate: (doc: Doc) => {
        doc.components.parameters.WebhookIdHeader.examples.event.value = 'msg_123'
      },
      want: /WebhookIdHeader\.examples\.event\.value: does not match/,
    },
  ])('fails $name', async ({ mutate, want }) => {
    const result = await checkExamples(await brokenV1(mutate))
    expect(result.failures).toHaveLength(1)
    expect(`${result.failures[0]?.path}: ${result.failures[0]?.message}`).toMatch(want)
  })
})

describe('the real v1.yaml webhooks', () => {
  it('pass the webhook rules', () => {
    expect(baseline.filter((finding) => finding.path.startsWith('webhooks'))).toEqual([])
  })

  it('serialize back unchanged (the copy used above is faithful)', () => {
    expect(parse(stringify(realV1))).toEqual(realV1)
  })
})
