/**
 * What a provider assumes for request options the caller left out. The agent's
 * knob slice (`knobs/provider-knobs.ts`) takes its defaults from here, so a
 * provider called directly and an agent run agree, and each default is
 * written once.
 */
export const STREAM_OPTION_DEFAULTS = Object.freeze({
  /** Prompt-cache breakpoints are placed unless a caller turns them off. */
  cache: true,
  /** The providers' own cache lifetime. */
  cacheTtl: '5m',
  /** Anthropic's level-derived effort hint is sent unless turned off. */
  effortHint: true,
} as const)
