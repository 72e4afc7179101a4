// The check and datasource forms' words built in code follow the app's language: a catalog that could
// not be listed, the datasource kinds, a bad options field, the Name row of a version diff, and the
// new check's first step. Each is read in Chinese, then in English again (setup.ts starts in English).
import { afterEach, describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { createMemoryHistory, createRouter } from 'vue-router'
import ElementPlus from 'element-plus'
import type { CheckVersion, RuleTemplate } from '@/api/types'
import { applyLocale } from '@/i18n'
import { catalogProblem } from '@/lib/checkForm'
import { bodyOf, draftOf, FORMATS, TYPES } from '@/lib/datasourceForm'
import { diffVersions } from '@/lib/versionDiff'
import TemplatePicker from '@/pages/checks/TemplatePicker.vue'

afterEach(() => applyLocale('en'))

const version = (number: number, name: string): CheckVersion =>
  ({ number, name, params: { threshold: number }, created_at: '2026-12-01T00:00:00Z' }) as unknown as CheckVersion

describe('the checks and datasources words built in code', () => {
  it('say why a table list is missing in the language of the app', () => {
    applyLocale('zh-CN')
    expect(catalogProblem('/api/v1/datasources/3/tables/', 'password authentication failed')).toBe(
      '无法列出数据表：password authentication failed',
    )
    expect(catalogProblem('/api/v1/datasources/3/tables/orders/columns/', 'timeout')).toBe('无法列出字段：timeout')
    applyLocale('en')
    expect(catalogProblem('/api/v1/datasources/3/tables/', 'timeout')).toBe('The tables could not be listed: timeout')
  })

  it('name the datasource kinds and formats anew when the language changes', () => {
    const files = () => TYPES.find((t) => t.value === 'file')?.label
    const jsonLines = () => FORMATS.find((f) => f.value === 'json')?.label
    applyLocale('zh-CN')
    expect([files(), jsonLines()]).toEqual(['文件', 'JSON（每行一个对象）'])
    applyLocale('en')
    expect([files(), jsonLines()]).toEqual(['Files', 'JSON (one object per line)'])
  })

  it('refuse options that are not a JSON object in Chinese, with the example as typed', () => {
    applyLocale('zh-CN')
    const { problems } = bodyOf({ ...draftOf(), name: 'lake', optionsText: '[1, 2]' }, false)
    expect(problems.options).toBe('选项必须是一个 JSON 对象，例如 {"sslmode": "require"}。')
  })

  it('title the name row of a version diff in Chinese', () => {
    applyLocale('zh-CN')
    const rows = diffVersions(version(1, 'orders'), version(2, 'orders · status'))
    expect(rows[0]).toMatchObject({ field: 'name', title: '名称', changed: true })
  })

  it('show a new check its first step in Chinese, and no English', async () => {
    applyLocale('zh-CN')
    const router = createRouter({
      history: createMemoryHistory(),
      routes: [{ path: '/templates', name: 'templates', component: { template: '<div />' } }],
    })
    const templates = [{ key: 'null_check', name: 'Null check', dimension: 'completeness', description: '' }] as RuleTemplate[]
    const picker = mount(TemplatePicker, {
      props: { templates, loading: false, error: '', modelValue: '' },
      global: { plugins: [ElementPlus, router] },
    })
    await router.isReady()
    const text = picker.text()
    expect(text).toContain('1. 规则模板')
    expect(text).toContain('不确定选哪个？浏览模板目录，其中有每个模板的说明。')
    expect(picker.find('a').text()).toBe('浏览模板目录')
    expect(picker.find('.el-select__placeholder').text()).toBe('选择一个规则模板')
    expect(text).not.toMatch(/Rule template|Not sure|Browse the catalog/)
  })
})
