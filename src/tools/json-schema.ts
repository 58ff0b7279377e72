/**
 * A small JSON Schema checker for tool inputs that come without their own
 * `validate`. It covers what tool schemas use in practice (types, required,
 * properties, additionalProperties: false, enum, const, items, string and
 * number bounds, anyOf/oneOf) and reports every problem with its path, so
 * the model can fix all of them in one retry. Unknown keywords are ignored.
 */

type Schema = Record<string, unknown>

/** Check a value against the JSON Schema subset tools use; each problem comes back as one readable line. */
export function checkJsonSchema(schema: Schema, value: unknown): string[] {
  const problems: string[] = []
  visit(schema, value, '', problems)
  return problems
}

function visit(schema: Schema, value: unknown, path: string, problems: string[]): void {
  const at = path || '(input)'

  if ('const' in schema && !deepEqual(schema.const, value)) {
    problems.push(`${at}: must be ${JSON.stringify(schema.const)}`)
    return
  }
  if (Array.isArray(schema.enum) && !schema.enum.some(option => deepEqual(option, value))) {
    problems.push(`${at}: must be one of ${schema.enum.map(option => JSON.stringify(option)).join(', ')}`)
    return
  }
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(alternatives) && !alternatives.some(option => checkJsonSchema(option, value).length === 0)) {
    problems.push(`${at}: does not match any allowed shape`)
    return
  }
  if (schema.type !== undefined && !matchesType(schema.type, value)) {
    problems.push(`${at}: expected ${describeType(schema.type)}, got ${typeName(value)}`)
    return
  }

  if (typeof value === 'string')
    checkString(schema, value, at, problems)
  else if (typeof value === 'number')
    checkNumber(schema, value, at, problems)
  else if (Array.isArray(value))
    checkArray(schema, value, path, problems)
  else if (isPlainObject(value))
    checkObject(schema, value, path, problems)
}

function checkString(schema: Schema, value: string, at: string, problems: string[]): void {
  if (typeof schema.minLength === 'number' || typeof schema.maxLength === 'number') {
    // JSON Schema counts characters (code points), not UTF-16 units.
    const length = codePointLength(value)
    if (typeof schema.minLength === 'number' && length < schema.minLength)
      problems.push(`${at}: must have at least ${schema.minLength} characters`)
    if (typeof schema.maxLength === 'number' && length > schema.maxLength)
      problems.push(`${at}: must have at most ${schema.maxLength} characters`)
  }
  if (typeof schema.pattern === 'string') {
    const pattern = compilePattern(schema.pattern)
    if (pattern && !pattern.test(value))
      problems.push(`${at}: must match /${schema.pattern}/`)
  }
}

function codePointLength(value: string): number {
  let length = 0
  for (const _ of value)
    length++
  return length
}

/**
 * Unicode mode first; many real schemas use escapes (`\:`, `\@`) that only
 * the legacy mode accepts. A pattern neither mode compiles is ignored like an
 * unknown keyword rather than failing the tool call.
 */
function compilePattern(source: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(source, flags)
    }
    catch {}
  }
  return undefined
}

function checkNumber(schema: Schema, value: number, at: string, problems: string[]): void {
  if (typeof schema.minimum === 'number' && value < schema.minimum)
    problems.push(`${at}: must be >= ${schema.minimum}`)
  if (typeof schema.maximum === 'number' && value > schema.maximum)
    problems.push(`${at}: must be <= ${schema.maximum}`)
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    problems.push(`${at}: must be > ${schema.exclusiveMinimum}`)
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    problems.push(`${at}: must be < ${schema.exclusiveMaximum}`)
}

function checkArray(schema: Schema, value: unknown[], path: string, problems: string[]): void {
  const at = path || '(input)'
  if (typeof schema.minItems === 'number' && value.length < schema.minItems)
    problems.push(`${at}: must have at least ${schema.minItems} items`)
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
    problems.push(`${at}: must have at most ${schema.maxItems} items`)
  if (isPlainObject(schema.items))
    value.forEach((item, index) => visit(schema.items as Schema, item, `${path}[${index}]`, problems))
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string, problems: string[]): void {
  const properties = isPlainObject(schema.properties) ? schema.properties as Record<string, Schema> : {}
  const prefix = path ? `${path}.` : ''
  if (Array.isArray(schema.required)) {
    for (const key of schema.required as string[]) {
      if (value[key] === undefined)
        problems.push(`${prefix}${key}: is required`)
    }
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchema = properties[key]
    if (childSchema) {
      if (child !== undefined)
        visit(childSchema, child, `${prefix}${key}`, problems)
    }
    else if (schema.additionalProperties === false) {
      problems.push(`${prefix}${key}: is not an allowed property`)
    }
    else if (isPlainObject(schema.additionalProperties)) {
      visit(schema.additionalProperties as Schema, child, `${prefix}${key}`, problems)
    }
  }
}

function matchesType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type))
    return type.some(t => matchesType(t, value))
  switch (type) {
    case 'string': return typeof value === 'string'
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'integer': return Number.isInteger(value)
    case 'boolean': return typeof value === 'boolean'
    case 'array': return Array.isArray(value)
    case 'object': return isPlainObject(value)
    case 'null': return value === null
    default: return true
  }
}

function describeType(type: unknown): string {
  return Array.isArray(type) ? type.join(' or ') : String(type)
}

function typeName(value: unknown): string {
  if (value === null)
    return 'null'
  if (Array.isArray(value))
    return 'array'
  if (Number.isInteger(value))
    return 'integer'
  return typeof value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b)
    return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return false
  if (Array.isArray(a) !== Array.isArray(b))
    return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length
    && keysA.every(key => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}
