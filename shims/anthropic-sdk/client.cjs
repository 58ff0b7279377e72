'use strict'
// Node loads the Anthropic SDK's CommonJS build through this file; why, in
// docs/decisions/2026-12-04-anthropic-sdk-through-require.md. Only the names
// zidane imports are passed on, each assigned by name so Node's import of a
// CommonJS file can list them.
const client = require('@anthropic-ai/sdk/client.js')

exports.BaseAnthropic = client.BaseAnthropic
