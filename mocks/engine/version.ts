/** The version of voice-api-kit this engine belongs to (package.json's; a test keeps the two equal). */
export const MOCK_VERSION = '0.2.0'
