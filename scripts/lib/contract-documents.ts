import type { ContractProfile } from '../../contract-rules/index.ts'

/** A hand-written contract document and the names of what is generated from it. */
export interface ContractDocument {
  /** Short name, also the stem of the generated files (`v1` -> `v1.types.ts`, `v1.document.ts`). */
  name: string
  /** Path of the YAML source, relative to the repository root. */
  source: string
  /** Name of the constant exported by the generated `*.document.ts`. */
  exportName: string
  /** The conventions it follows (which Spectral ruleset applies). */
  profile: ContractProfile
}

/** The contract documents of the kit. */
export const CONTRACT_DOCUMENTS: readonly ContractDocument[] = [
  { name: 'v1', source: 'openapi/v1.yaml', exportName: 'v1Document', profile: 'v1' },
  {
    name: 'mock-control',
    source: 'openapi/mock-control.yaml',
    exportName: 'mockControlDocument',
    profile: 'mock-control',
  },
]

/** Folder of the generated files, relative to the repository root. */
export const GENERATED_DIR = 'openapi/generated'

/** The profile of a document path: `mock-control*` files follow the control-plane conventions. */
export function profileOf(file: string): ContractProfile {
  const base = file.split(/[\\/]/).at(-1) ?? file
  return base.startsWith('mock-control') ? 'mock-control' : 'v1'
}
