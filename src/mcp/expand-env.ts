import type { McpIdentityProviderConfig, McpServerConfig } from './types'
import { mergeObjects } from '../core/merge-objects'

type Env = Record<string, string | undefined>

// `${VAR}`, `${env:VAR}` and `${VAR:-default}`; the default may be empty but cannot contain `}`.
const PLACEHOLDER = /\$\{(?:env:)?([A-Z_]\w*)(?::-([^}]*))?\}/gi

/**
 * Replace placeholders in one string. A variable that is unset (or empty, when
 * a default is given) takes the default; an unset variable without a default
 * becomes the empty string, the way a shell would expand it.
 */
export function expandEnvString(value: string, env: Env = process.env): string {
  return value.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
    const current = env[name]
    if (fallback !== undefined)
      return current || fallback
    return current ?? ''
  })
}

function expandIdentityProvider(idp: McpIdentityProviderConfig, env: Env): McpIdentityProviderConfig {
  const one = (value: string | undefined) => value === undefined ? undefined : expandEnvString(value, env)
  return mergeObjects(idp, { tokenEndpoint: typeof idp.tokenEndpoint === 'string' ? expandEnvString(idp.tokenEndpoint, env) : idp.tokenEndpoint, clientId: typeof idp.clientId === 'string' ? expandEnvString(idp.clientId, env) : idp.clientId, clientSecret: one(idp.clientSecret), idToken: one(idp.idToken) })
}

function expandRecord(record: Record<string, string> | undefined, env: Env) {
  if (!record)
    return undefined
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expandEnvString(v, env)]))
}

/**
 * Expand placeholders in the fields that reach the transport: `command`,
 * `args`, `env` values, `cwd`, `url` and `headers` values, and the OAuth
 * client's `clientId`, `clientSecret` and `privateKey` (and its identity
 * provider's `tokenEndpoint`, `clientId`, `clientSecret`, `idToken`). A `preExpanded`
 * config is returned unchanged because its loader has its own, narrower rules.
 */
export function expandServerConfig(config: McpServerConfig, env: Env = process.env): McpServerConfig {
  if (config.preExpanded)
    return config
  const one = (value: string | undefined) => value === undefined ? undefined : expandEnvString(value, env)
  return mergeObjects(config, { command: one(config.command), args: config.args?.map(arg => expandEnvString(arg, env)), env: expandRecord(config.env, env), cwd: one(config.cwd), url: one(config.url), headers: expandRecord(config.headers, env), oauth: config.oauth && mergeObjects(config.oauth, { clientId: expandEnvString(config.oauth.clientId, env), clientSecret: one(config.oauth.clientSecret), privateKey: one(config.oauth.privateKey) }, (config.oauth.identityProvider ? { identityProvider: expandIdentityProvider(config.oauth.identityProvider, env) } : {})) })
}
