'use strict'
// See client.cjs.
const messages = require('@anthropic-ai/sdk/resources/messages/messages.js')

exports.Messages = messages.Messages
