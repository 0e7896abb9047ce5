import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { buildDocs } from '../scripts/build-docs.ts'
import { checkDocument, checkExamples, checkOasSchema, checkSpectral } from '../scripts/check-contract.ts'
import { findStaleFiles, generateAll, writeGenerated } from '../scripts/generate.ts'
import type { CheckResult, Finding } from '../scripts/lib/check-result.ts'
import { CONTRACT_DOCUMENTS } from '../scripts/lib/contract-documents.ts'
import { findExternalAssets } from '../scripts/lib/find-external-assets.ts'
import { HTTP_METHODS } from '../scripts/lib/walk-openapi.ts'

// biome-ignore lint/suspicious/noExplicitAny: broken copies are built by mutating untyped YAML data
type Doc = any

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const V1 = join(ROOT, 'openapi/v1.yaml')
const REAL_DOCUMENTS = CONTRACT_DOCUMENTS.map((document) => join(ROOT, document.source))

let tempDir: string
let realV1: Doc
let v1Baseline: Finding[]

beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'contract-checks-'))
  realV1 = parse(await readFile(V1, 'utf8'))
  v1Baseline = (await checkSpectral(V1, 'v1')).failures
})

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true })
})

/** Writes a mutated copy of the real v1.yaml to a fresh temp folder and returns its path. */
async function brokenV1(mutate: (doc: Doc) => void): Promise<string> {
  const doc = structuredClone(realV1)
  mutate(doc)
  const dir = await mkdtemp(join(tempDir, 'v1-'))
  const file = join(dir, 'v1.yaml')
  await writeFile(file, stringify(doc))
  return file
}

/** The operations of a document, in document order. */
function operations(doc: Doc): Array<{ path: string; method: string; op: Doc }> {
  return Object.entries(doc.paths as Record<string, Doc>).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => ({ path, method, op: item[method] })),
  )
}

/** The first operation that needs permissions (non-empty x-required-permission). */
function guardedOperation(doc: Doc): Doc {
  const found = operations(doc).find(({ op }) => (op['x-required-permission'] ?? []).length > 0)
  if (!found) throw new Error('v1.yaml has no permission-guarded operation')
  return found.op
}

/** The first operation (`getUser` in v1.yaml). */
function firstOperation(doc: Doc): Doc {
  const [first] = operations(doc)
  if (!first) throw new Error('v1.yaml has no operation')
  return first.op
}

/** The first component schema that declares properties. */
function schemaWithProperties(doc: Doc): Doc {
  const found = Object.values(doc.components.schemas as Record<string, Doc>).find(
    (schema) => schema.properties,
  )
  if (!found) throw new Error('v1.yaml has no component schema with properties')
  return found
}

/** A response that documents Request-Id and has the given content schema. */
function inlineResponse(schema: unknown): Doc {
  return {
    description: 'Inline response written by the test.',
    headers: { 'Request-Id': { $ref: '#/components/headers/Request-Id' } },
    content: { 'application/json': { schema } },
  }
}

/** The media type of the first 2xx JSON response whose schema is a `$ref` to an object schema. */
function objectResponseMediaType(doc: Doc): Doc {
  for (const { op } of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
      const mediaType = response.content?.['application/json']
      const ref: unknown = mediaType?.schema?.$ref
      if (!status.startsWith('2') || typeof ref !== 'string') continue
      const target = doc.components.schemas[ref.split('/').at(-1) ?? '']
      if (target?.type === 'object') return mediaType
    }
  }
  throw new Error('v1.yaml has no 2xx JSON response with an object schema $ref')
}

/** Failures of a result that the real document does not have (same rule and path). */
function newFailures(result: CheckResult, baseline: Finding[]): Finding[] {
  const known = new Set(baseline.map((finding) => `${finding.rule} ${finding.path}`))
  return result.failures.filter((finding) => !known.has(`${finding.rule} ${finding.path}`))
}

describe('the real documents', () => {
  it.each(REAL_DOCUMENTS)('pass every contract check: %s', async (file) => {
    const results = await checkDocument(file)
    expect(
      results.flatMap((result) => result.failures.map((failure) => `${result.check}: ${failure.path}`)),
    ).toEqual([])
  })

  it('have examples to validate', async () => {
    const result = await checkExamples(V1)
    expect(result.summary).toMatch(/^[1-9]\d* validated, 0 invalid/)
  })
})

describe('the minimal fixture documents', () => {
  it.each(['v1.yaml', 'mock-control.yaml'])('pass every contract check: %s', async (name) => {
    const results = await checkDocument(join(ROOT, 'test/fixtures/contract', name))
    expect(results.flatMap((result) => result.failures)).toEqual([])
  })
})

describe('OpenAPI 3.1 schema check', () => {
  it.each([
    { name: 'info without title', mutate: (doc: Doc) => delete doc.info.title, want: /title/ },
    {
      name: 'an unknown field in an operation',
      mutate: (doc: Doc) => {
        firstOperation(doc).summaryy = 'typo'
      },
      want: /summaryy/,
    },
    {
      name: 'a schema with a misspelt type',
      mutate: (doc: Doc) => {
        schemaWithProperties(doc).type = 'objekt'
      },
      want: /components\.schemas/,
    },
  ])('fails $name', async ({ mutate, want }) => {
    const result = await checkOasSchema(await brokenV1(mutate))
    expect(result.failures.map((failure) => `${failure.path}: ${failure.message}`).join('\n')).toMatch(want)
  })
})

describe('Spectral project ruleset', () => {
  it.each([
    {
      name: 'an operation without operationId',
      rule: 'operation-id-camel-case',
      mutate: (doc: Doc) => delete firstOperation(doc).operationId,
    },
    {
      name: 'an operation with two tags',
      rule: 'operation-single-tag',
      mutate: (doc: Doc) => {
        const op = firstOperation(doc)
        op.tags = [...op.tags, ...op.tags]
      },
    },
    {
      name: 'an operation without x-required-permission',
      rule: 'operation-required-permission',
      mutate: (doc: Doc) => delete guardedOperation(doc)['x-required-permission'],
    },
    {
      name: 'an x-required-permission that is not an array of scopes',
      rule: 'operation-required-permission',
      mutate: (doc: Doc) => {
        guardedOperation(doc)['x-required-permission'] = 'agents:read'
      },
    },
    {
      name: 'an operation without 429',
      rule: 'operation-401-429',
      mutate: (doc: Doc) => delete firstOperation(doc).responses['429'],
    },
    {
      name: 'an operation without 401',
      rule: 'operation-401-429',
      mutate: (doc: Doc) => delete firstOperation(doc).responses['401'],
    },
    {
      name: 'a permission-guarded operation without 403',
      rule: 'permission-guarded-403',
      mutate: (doc: Doc) => delete guardedOperation(doc).responses['403'],
    },
    {
      name: 'a camelCase property',
      rule: 'schema-properties-snake-case',
      mutate: (doc: Doc) => {
        schemaWithProperties(doc).properties.createdAt = { type: 'string' }
      },
    },
    {
      name: 'a 4xx response not using Error',
      rule: 'error-responses-use-error-schema',
      mutate: (doc: Doc) => {
        firstOperation(doc).responses['401'] = inlineResponse({ type: 'object' })
      },
    },
    {
      name: 'a 4xx response using a copy of Error instead of the shared schema',
      rule: 'error-responses-use-error-schema',
      mutate: (doc: Doc) => {
        firstOperation(doc).responses['401'] = inlineResponse(structuredClone(doc.components.schemas.Error))
      },
    },
    {
      name: 'a response without the Request-Id header',
      rule: 'responses-document-request-id',
      mutate: (doc: Doc) => {
        const response = inlineResponse({ $ref: '#/components/schemas/Error' })
        delete response.headers
        firstOperation(doc).responses['401'] = response
      },
    },
  ])('fails $name ($rule)', async ({ rule, mutate }) => {
    const result = await checkSpectral(await brokenV1(mutate), 'v1')
    const rules = [...new Set(newFailures(result, v1Baseline).map((finding) => finding.rule))]
    expect(rules).toEqual([rule])
  })

  it('accepts a 4xx response whose schema is an allOf including Error', async () => {
    const file = await brokenV1((doc) => {
      firstOperation(doc).responses['401'] = inlineResponse({
        allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object' }],
      })
    })
    expect(newFailures(await checkSpectral(file, 'v1'), v1Baseline)).toEqual([])
  })

  it('keeps the v1-only rules off the mock-control profile', async () => {
    const file = await brokenV1((doc) => {
      for (const { op } of operations(doc)) {
        delete op['x-required-permission']
        delete op.responses['429']
      }
    })
    const v1Rules = ['operation-required-permission', 'operation-401-429', 'permission-guarded-403']
    const result = await checkSpectral(file, 'mock-control')
    expect(result.failures.filter((finding) => v1Rules.includes(finding.rule ?? ''))).toEqual([])
  })
})

describe('example validation', () => {
  it.each([
    {
      name: 'a media type example of the wrong type',
      mutate: (doc: Doc) => {
        objectResponseMediaType(doc).example = 'not an object'
      },
      want: /\.example: does not match/,
    },
    {
      name: 'a named media type example of the wrong type',
      mutate: (doc: Doc) => {
        objectResponseMediaType(doc).examples = { broken: { value: ['not an object'] } }
      },
      want: /\.examples\.broken\.value: does not match/,
    },
    {
      name: 'a schema example of the wrong type',
      mutate: (doc: Doc) => {
        schemaWithProperties(doc).examples = [42]
      },
      want: /components\.schemas\.\w+\.examples\[0\]: does not match/,
    },
    {
      name: 'a parameter example outside its schema',
      mutate: (doc: Doc) => {
        firstOperation(doc).parameters = [
          { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 }, example: 1000 },
        ]
      },
      want: /parameters\[0\]\.example: does not match .*must be <= 100/,
    },
    {
      name: 'an example with a malformed date-time',
      mutate: (doc: Doc) => {
        firstOperation(doc).parameters = [
          {
            name: 'since',
            in: 'query',
            schema: { type: 'string', format: 'date-time' },
            example: 'yesterday',
          },
        ]
      },
      want: /must match format "date-time"/,
    },
  ])('fails $name', async ({ mutate, want }) => {
    const result = await checkExamples(await brokenV1(mutate))
    expect(result.failures).toHaveLength(1)
    expect(`${result.failures[0]?.path}: ${result.failures[0]?.message}`).toMatch(want)
  })
})

describe('generated files', () => {
  it('are fresh in the repository', async () => {
    expect(await findStaleFiles()).toEqual([])
  })

  it('are reported stale when the contract changes', async () => {
    const root = await mkdtemp(join(tempDir, 'generate-'))
    await mkdir(join(root, 'openapi'))
    for (const document of CONTRACT_DOCUMENTS)
      await copyFile(join(ROOT, document.source), join(root, document.source))
    await writeGenerated(await generateAll({ root }), root)
    expect(await findStaleFiles({ root })).toEqual([])

    const doc = structuredClone(realV1)
    doc.components.schemas.AddedByTest = { type: 'object', properties: { added: { type: 'string' } } }
    await writeFile(join(root, 'openapi/v1.yaml'), stringify(doc))
    expect(await findStaleFiles({ root })).toEqual([
      'openapi/generated/v1.document.ts',
      'openapi/generated/v1.types.ts',
    ])
  })

  it('are reported stale when edited by hand, missing, or unexpected', async () => {
    const root = await mkdtemp(join(tempDir, 'generate-'))
    await mkdir(join(root, 'openapi'))
    for (const document of CONTRACT_DOCUMENTS)
      await copyFile(join(ROOT, document.source), join(root, document.source))
    await writeGenerated(await generateAll({ root }), root)
    await writeFile(join(root, 'openapi/generated/v1.types.ts'), '// edited\n', { flag: 'a' })
    await rm(join(root, 'openapi/generated/mock-control.document.ts'))
    await writeFile(join(root, 'openapi/generated/left-over.ts'), '')
    expect(await findStaleFiles({ root })).toEqual([
      'openapi/generated/left-over.ts',
      'openapi/generated/mock-control.document.ts',
      'openapi/generated/v1.types.ts',
    ])
  })

  it('start with the do-not-edit header', async () => {
    for (const [path, content] of await generateAll()) {
      expect(content.split('\n')[0], path).toMatch(
        /^\/\/ generated by npm run generate from \S+; do not edit$/,
      )
    }
  })
})

describe('npm run docs', () => {
  it('builds a self-contained HTML reference', async () => {
    const file = await buildDocs(join(tempDir, 'docs', 'v1.html'))
    const html = await readFile(file, 'utf8')
    expect(html).toContain('<!DOCTYPE html>')
    expect(html).toContain(realV1.info.title)
    expect(findExternalAssets(html)).toEqual([])
  })

  it.each([
    {
      html: '<script src="https://cdn.example.com/redoc.js"></script>',
      want: ['https://cdn.example.com/redoc.js'],
    },
    { html: '<link rel="stylesheet" href="//fonts.example.com/a.css">', want: ['//fonts.example.com/a.css'] },
    {
      html: '<script type="module">import { x } from "https://cdn.example.com/m.js"</script>',
      want: ['https://cdn.example.com/m.js'],
    },
    {
      html: '<style>@font-face { src: url(https://fonts.example.com/f.woff2) }</style>',
      want: ['https://fonts.example.com/f.woff2'],
    },
    { html: '<a href="https://redocly.com">docs by Redocly</a><script>var a = 1</script>', want: [] },
  ])('finds external assets in $html', ({ html, want }) => {
    expect(findExternalAssets(html)).toEqual(want)
  })
})
