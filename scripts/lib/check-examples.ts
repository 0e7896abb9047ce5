import type { ErrorObject } from 'ajv'
import type { CheckResult, Finding } from './check-result.ts'
import { createSchemaAjv } from './create-schema-ajv.ts'
import {
  formatPath,
  isJsonObject,
  type JsonObject,
  type JsonPath,
  objectEntries,
  toJsonPointer,
} from './json.ts'
import { loadYamlDocument } from './load-yaml-document.ts'
import { resolveLocalRef } from './resolve-local-ref.ts'
import { walkOpenApi } from './walk-openapi.ts'
import { walkSchema } from './walk-schema.ts'

const DOCUMENT_ID = 'urn:voice-api-kit:contract-under-check'

/** An example value and the schema it must satisfy. */
interface ExampleCase {
  value: unknown
  /** Where the example is written. */
  path: JsonPath
  /** Where its schema is. */
  schemaPath: JsonPath
}

/** What collecting examples found besides the cases. */
interface Collected {
  cases: ExampleCase[]
  skipped: Finding[]
  usedExamples: Set<string>
}

/** Collects the `example` / `examples` of a Media Type, Parameter or Header against its `schema`. */
function collectFromHolder(document: JsonObject, holder: JsonObject, path: JsonPath, out: Collected): void {
  const hasExamples = holder.example !== undefined || isJsonObject(holder.examples)
  if (!hasExamples) return
  if (holder.schema === undefined) {
    out.skipped.push({ path: formatPath(path), message: 'has examples but no schema to check them against' })
    return
  }
  const schemaPath = [...path, 'schema']
  if (holder.example !== undefined)
    out.cases.push({ value: holder.example, path: [...path, 'example'], schemaPath })
  for (const [name, entry] of objectEntries(holder.examples)) {
    const at = [...path, 'examples', name]
    const resolved = resolveLocalRef(document, entry, at)
    for (const ref of resolved.via) out.usedExamples.add(ref)
    const example = resolved.value
    if (!isJsonObject(example)) {
      out.skipped.push({ path: formatPath(at), message: `unresolvable example ${resolved.via.join(' -> ')}` })
    } else if ('value' in example) {
      out.cases.push({
        value: example.value,
        path: resolved.via.length ? resolved.path : [...at, 'value'],
        schemaPath,
      })
    } else if (typeof example.externalValue === 'string') {
      out.skipped.push({ path: formatPath(at), message: 'externalValue is not validated' })
    }
  }
}

/** Collects every example of the document with the schema that governs it. */
function collectExamples(document: JsonObject): Collected {
  const out: Collected = { cases: [], skipped: [], usedExamples: new Set() }
  const holder = (value: JsonObject, path: JsonPath) => collectFromHolder(document, value, path, out)
  walkOpenApi(document, {
    mediaType: holder,
    parameter: holder,
    schema: (root, rootPath) =>
      walkSchema(root, rootPath, (schema, path) => {
        if (schema.example !== undefined)
          out.cases.push({ value: schema.example, path: [...path, 'example'], schemaPath: path })
        const examples: unknown[] = Array.isArray(schema.examples) ? schema.examples : []
        for (const [index, value] of examples.entries())
          out.cases.push({ value, path: [...path, 'examples', index], schemaPath: path })
      }),
  })
  return out
}

/** One Ajv error, in words, with where in the example it is. */
function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)'
  const params = error.params as Record<string, unknown>
  const detail =
    params.additionalProperty !== undefined
      ? ` ('${String(params.additionalProperty)}')`
      : params.allowedValues !== undefined
        ? ` (${JSON.stringify(params.allowedValues)})`
        : ''
  return `${where} ${error.message ?? error.keyword}${detail}`
}

/** Components examples that no Media Type, Parameter or Header uses (so nothing validates them). */
function unusedExamples(document: JsonObject, used: Set<string>): Finding[] {
  const components = isJsonObject(document.components) ? document.components : {}
  return objectEntries(components.examples)
    .map(([name]) => ['components', 'examples', name] as JsonPath)
    .filter((path) => !used.has(`#${toJsonPointer(path)}`))
    .map((path) => ({ path: formatPath(path), message: 'is used nowhere, so it is not validated' }))
}

/**
 * Validates every example of an OpenAPI document against its schema with Ajv (JSON Schema
 * 2020-12 and ajv-formats): `example` / `examples` of media types, parameters and headers, and
 * `example` / `examples` of schemas. A schema that does not compile fails the examples that use it.
 */
export async function checkExamples(file: string): Promise<CheckResult> {
  const document = await loadYamlDocument(file)
  const ajv = createSchemaAjv(document, DOCUMENT_ID)
  const { cases, skipped, usedExamples } = collectExamples(document)
  const failures: Finding[] = []
  for (const example of cases) {
    const path = formatPath(example.path)
    try {
      const validate = ajv.getSchema(`${DOCUMENT_ID}#${toJsonPointer(example.schemaPath)}`)
      if (!validate) throw new Error(`no schema at ${formatPath(example.schemaPath)}`)
      if (!validate(example.value)) {
        const errors = (validate.errors ?? []).map(describeError).join('; ')
        failures.push({ path, message: `does not match ${formatPath(example.schemaPath)}: ${errors}` })
      }
    } catch (error) {
      failures.push({
        path,
        message: `schema ${formatPath(example.schemaPath)} does not compile: ${String(error)}`,
      })
    }
  }
  const skippedCount = skipped.length ? `, ${skipped.length} skipped` : ''
  return {
    check: 'examples',
    file,
    summary: `${cases.length} validated, ${failures.length} invalid${skippedCount}`,
    failures,
    notes: [...skipped, ...unusedExamples(document, usedExamples)],
  }
}
