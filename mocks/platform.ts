import { mockControlDocument } from '../openapi/generated/mock-control.document.ts'
import { v1Document } from '../openapi/generated/v1.document.ts'
import { createEngine, type Engine, type EngineOptions } from './engine/create-engine.ts'

export type MockPlatformOptions = Omit<EngineOptions, 'documents'>
export type MockPlatform = Engine

/** The contract documents the platform is built from (generated from `openapi/*.yaml`). */
export const contractDocuments = {
  v1: v1Document,
  control: mockControlDocument,
}

/**
 * A fresh stateful mock of the platform, seeded with a demo account whose keys are
 * `platform.demo.secretKey` and `platform.demo.publishableKey`.
 */
export function createMockPlatform(options: MockPlatformOptions = {}): Promise<MockPlatform> {
  return createEngine({ documents: contractDocuments, ...options })
}
