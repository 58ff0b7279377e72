import { MCP_KNOBS } from '../../../src/knobs/mcp-knobs'
import { runSliceScenarios } from './harness'
import { mcpScenarios } from './scenarios/mcp'

runSliceScenarios(MCP_KNOBS, mcpScenarios)
