'use strict'
// See client.cjs.
const error = require('@anthropic-ai/sdk/core/error.js')

exports.APIError = error.APIError
exports.APIConnectionError = error.APIConnectionError
exports.APIConnectionTimeoutError = error.APIConnectionTimeoutError
exports.APIUserAbortError = error.APIUserAbortError
