import { describe, expect, it } from 'vitest'
import { basic } from '../../src/presets'
import { createEditTool, edit } from '../../src/tools/edit'
import { glob } from '../../src/tools/glob'
import { grep } from '../../src/tools/grep'
import { listFiles } from '../../src/tools/list-files'
import { multiEdit } from '../../src/tools/multi-edit'
import { EDIT_DESCRIPTION, resolveToolDescription, TOOL_PROMPTS, withToolDescriptions } from '../../src/tools/prompts'
import { readFile } from '../../src/tools/read-file'
import { writeFile } from '../../src/tools/write-file'

describe('tool prompts', () => {
  it('every built-in file tool uses its exported description by default', () => {
    const tools = { read_file: readFile, write_file: writeFile, edit, multi_edit: multiEdit, list_files: listFiles, glob, grep }
    for (const [name, def] of Object.entries(tools)) {
      expect(def.spec.name).toBe(name)
      expect(def.spec.description).toBe(TOOL_PROMPTS[name as keyof typeof TOOL_PROMPTS])
    }
  })

  it('a factory takes a replacement description or a function of the default', () => {
    expect(createEditTool({ description: 'Custom.' }).spec.description).toBe('Custom.')
    expect(createEditTool({ description: base => `${base}\n\nNever edit generated files.` }).spec.description).toBe(`${EDIT_DESCRIPTION}\n\nNever edit generated files.`)
    expect(resolveToolDescription('grep')).toBe(TOOL_PROMPTS.grep)
  })

  it('withToolDescriptions rewrites descriptions of a tool map without touching the others', () => {
    const tools = withToolDescriptions(basic.tools, { grep: 'Search.', read_file: base => base.toUpperCase() })
    expect(tools.grep.spec.description).toBe('Search.')
    expect(tools.read_file.spec.description).toBe(TOOL_PROMPTS.read_file.toUpperCase())
    expect(tools.shell).toBe(basic.tools.shell)
    expect(tools.edit).toBe(basic.tools.edit)
    // The copy still runs the same tool.
    expect(tools.grep.execute).toBe(basic.tools.grep.execute)
    expect(basic.tools.grep.spec.description).toBe(TOOL_PROMPTS.grep)
  })
})
