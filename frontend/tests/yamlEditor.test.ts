import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import { defineComponent, h, ref } from 'vue'
import ElementPlus from 'element-plus'
import formCreate from '@form-create/element-ui'
import { EditorView } from '@codemirror/view'
import YamlEditor from '@/components/YamlEditor.vue'
import { lineRange, problemAt } from '@/lib/yamlProblems'

// The check.yaml field as /rule-templates/row_level_check/form/ serves it (rules/forms.py), beside
// the source fields it reads. The server is the one seam stubbed (fetch): its answers are the
// shapes executions/row_checks.py returns, checked against the real server by tests/browser.
const RULES = [
  { type: 'input', field: 'src_datasource_id', title: 'Source datasource', value: 7 },
  { type: 'input', field: 'src_table', title: 'Source table', value: 'orders' },
  { type: 'input', field: 'src_filter', title: 'Source filter', value: 'amount > 0' },
  {
    type: 'dq-yaml-editor',
    field: 'checks_yaml',
    title: 'Row checks (check.yaml)',
    props: {
      language: 'checks',
      textField: 'checks_yaml',
      validateUrl: '/api/v1/row-checks/validate/',
      previewUrl: '/api/v1/row-checks/preview/',
      previewLimit: 1000,
      datasourceField: 'src_datasource_id',
      tableField: 'src_table',
      filterField: 'src_filter',
      debounceMs: 10,
      previewPollMs: 10,
    },
  },
]

interface Sent {
  url: string
  body: Record<string, unknown>
}

/** A stubbed server: each URL answers its answers in turn (the last one again once they run out). */
function server(answers: Record<string, { status: number; body: unknown } | Array<{ status: number; body: unknown }>>) {
  const sent: Sent[] = []
  const asked: Record<string, number> = {}
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      sent.push({ url, body: init.body === undefined ? {} : JSON.parse(String(init.body)) })
      const listed = answers[url]
      const all = Array.isArray(listed) ? listed : [listed]
      const answer = all[Math.min((asked[url] = (asked[url] ?? 0) + 1) - 1, all.length - 1)]
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'Content-Type': 'application/json' },
      })
    }),
  )
  return sent
}

type Api = { getValue(field: string): unknown; setValue(field: string, value: unknown): void }

async function mountForm() {
  formCreate.component('dq-yaml-editor', YamlEditor)
  const api = ref<Api | null>(null)
  const FormCreate = formCreate.$form()
  // One rule array for the form's life, as CheckEditPage holds it: a new array on every render would
  // make form-create reload the rules and drop values set through the api.
  const rule = ref(JSON.parse(JSON.stringify(RULES)))
  const Host = defineComponent({
    setup: () => () =>
      h(FormCreate, {
        rule: rule.value,
        option: { submitBtn: false, resetBtn: false },
        'onUpdate:api': (value: Api) => (api.value = value),
      }),
  })
  const wrapper = mount(Host, { global: { plugins: [ElementPlus, formCreate] }, attachTo: document.body })
  await flushPromises()
  return { wrapper, api: api.value! }
}

/** Types into the CodeMirror editor as a user would (one transaction replacing the text). */
function type(wrapper: { find(selector: string): { element: Element } }, text: string) {
  const view = EditorView.findFromDOM(wrapper.find('.cm-editor').element as HTMLElement)!
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input.type' })
}


afterEach(() => vi.unstubAllGlobals())

describe('the check.yaml editor in the generated form', () => {
  it('validates the text with the form’s datasource and table and marks each problem at its line', async () => {
    const sent = server({
      '/api/v1/row-checks/validate/': {
        status: 400,
        body: {
          message: 'The row checks are not valid.',
          fields: { checks_yaml: ['line 3: checks[1]: unknown operator `=~`; did you mean `~=`?'] },
        },
      },
    })
    const { wrapper, api } = await mountForm()
    const text = 'checks:\n  - amount >= 0\n  - code =~ ^v\n'
    type(wrapper, text)
    await vi.waitFor(() => expect(wrapper.find('[data-testid="yaml-problems"]').exists()).toBe(true), { timeout: 5000 })

    expect(api.getValue('checks_yaml')).toBe(text) // the form holds what was typed

    expect(sent).toEqual([
      {
        url: '/api/v1/row-checks/validate/',
        body: { checks_yaml: text, src_datasource_id: 7, src_table: 'orders' },
      },
    ])
    const problem = wrapper.find('[data-testid="yaml-problems"] li')
    expect(problem.text()).toBe('line 3: checks[1]: unknown operator `=~`; did you mean `~=`?')
    expect(problem.attributes('data-line')).toBe('3')
    expect(wrapper.find('[data-testid="yaml-preview"]').attributes('disabled')).toBeDefined()
    expect(wrapper.find('.cm-editor').text()).toContain('code =~ ^v') // highlighted in CodeMirror
    wrapper.unmount()
  })

  it('shows the expanded full form of valid checks and the preview’s per-check failures', async () => {
    const full = [{ type: 'check', name: 'check-amount-ge', fn: 'ge', negate: false, fields: ['amount'], args: [0], critical: false }]
    const job = { id: 'a1', url: 'http://testserver/api/v1/row-checks/preview/a1/', message: '', warnings: [] }
    const sent = server({
      '/api/v1/row-checks/validate/': { status: 200, body: { checks: full, warnings: [] } },
      // 202 with a job, then the job polled: queued, running, done with the answer.
      '/api/v1/row-checks/preview/': { status: 202, body: { ...job, status: 'queued' } },
      [job.url]: [
        { status: 200, body: { ...job, status: 'running' } },
        {
          status: 200,
          body: {
            ...job,
            status: 'done',
            engine: 'duckdb',
            rows: 1000,
            invalid_rows: 3,
            checks: [{ name: 'check-amount-ge', failed_rows: 3, critical: false }],
          },
        },
      ],
    })
    const { wrapper } = await mountForm()
    type(wrapper, 'checks:\n  - amount >= 0\n')
    await vi.waitFor(() => expect(wrapper.find('[data-testid="yaml-valid"]').exists()).toBe(true), { timeout: 5000 })

    expect(wrapper.find('[data-testid="yaml-valid"]').text()).toBe('Valid: 1 checks')
    expect(wrapper.find('[data-testid="yaml-full-form"] pre').text()).toContain('"name": "check-amount-ge"')
    await wrapper.find('[data-testid="yaml-preview"]').trigger('click')
    await vi.waitFor(() => expect(wrapper.find('[data-testid="yaml-preview-result"]').exists()).toBe(true), {
      timeout: 5000,
    })

    expect(sent.slice(-3)).toEqual([
      {
        url: '/api/v1/row-checks/preview/',
        body: { checks_yaml: 'checks:\n  - amount >= 0\n', src_datasource_id: 7, src_table: 'orders', src_filter: 'amount > 0', limit: 1000 },
      },
      { url: job.url, body: {} },
      { url: job.url, body: {} },
    ])
    const result = wrapper.find('[data-testid="yaml-preview-result"]')
    expect(result.text()).toContain('3 of the first 1000 rows fail a check (read by DuckDB).')
    expect(result.find('tbody tr').text()).toBe('check-amount-ge3')
    wrapper.unmount()
  })
})

describe('a preview the server refuses or that fails', () => {
  it('shows the 429 message when the user has too many previews in flight, and a failed job’s message', async () => {
    const full = [{ type: 'check', name: 'check-amount-ge', fn: 'ge', negate: false, fields: ['amount'], args: [0], critical: false }]
    const busy = 'You have 3 previews in progress (at most 3 at once); wait for one to finish, then try again.'
    const job = { id: 'b2', url: 'http://testserver/api/v1/row-checks/preview/b2/', warnings: [] }
    server({
      '/api/v1/row-checks/validate/': { status: 200, body: { checks: full, warnings: [] } },
      '/api/v1/row-checks/preview/': [
        { status: 429, body: { message: busy, fields: {} } },
        { status: 202, body: { ...job, status: 'queued', message: '' } },
      ],
      [job.url]: { status: 200, body: { ...job, status: 'error', message: 'No worker took the preview within 30 s (all busy?); try again in a moment.' } },
    })
    const { wrapper } = await mountForm()
    type(wrapper, 'checks:\n  - amount >= 0\n')
    await vi.waitFor(() => expect(wrapper.find('[data-testid="yaml-valid"]').exists()).toBe(true), { timeout: 5000 })

    await wrapper.find('[data-testid="yaml-preview"]').trigger('click')
    await vi.waitFor(() => expect(wrapper.find('[data-testid="yaml-preview-problems"]').exists()).toBe(true), { timeout: 5000 })
    expect(wrapper.find('[data-testid="yaml-preview-problems"]').text()).toBe(busy)

    await wrapper.find('[data-testid="yaml-preview"]').trigger('click')
    await vi.waitFor(
      () => expect(wrapper.find('[data-testid="yaml-preview-problems"]').text()).toContain('No worker took the preview'),
      { timeout: 5000 },
    )
    expect(wrapper.find('[data-testid="yaml-preview-result"]').exists()).toBe(false)
    wrapper.unmount()
  })
})

describe('a value the form sets', () => {
  it('replaces the editor’s text and is validated, as when an edited check is loaded', async () => {
    const full = [{ type: 'check', name: 'check-qty-gt', fn: 'gt', negate: false, fields: ['qty'], args: [0], critical: false }]
    const sent = server({ '/api/v1/row-checks/validate/': { status: 200, body: { checks: full, warnings: [] } } })
    const { wrapper, api } = await mountForm()
    type(wrapper, 'checks:\n  - amount >= 0\n')
    await vi.waitFor(() => expect(sent.length).toBe(1), { timeout: 5000 })

    api.setValue('checks_yaml', 'checks:\n  - qty > 0\n')
    await flushPromises()

    const view = EditorView.findFromDOM(wrapper.find('.cm-editor').element as HTMLElement)!
    expect(view.state.doc.toString()).toBe('checks:\n  - qty > 0\n')
    expect(wrapper.find('.cm-editor').text()).toContain('qty > 0')
    await vi.waitFor(() => expect(sent.length).toBe(2), { timeout: 5000 })
    expect(sent[1].body.checks_yaml).toBe('checks:\n  - qty > 0\n')
    expect(api.getValue('checks_yaml')).toBe('checks:\n  - qty > 0\n')
    wrapper.unmount()
  })
})

describe('problem positions', () => {
  it('reads the line a problem names and finds that line in the text', () => {
    expect(problemAt('line 12: checks[3].fn: unknown function').line).toBe(12)
    expect(problemAt('Not valid YAML.').line).toBeNull()
    expect(problemAt('第 7 行：checks[0]: 未知的函数').line).toBe(7)
    expect(lineRange('a\nbb\nccc', 2)).toEqual({ from: 2, to: 4 })
    expect(lineRange('a\nbb', 9)).toEqual({ from: 2, to: 4 })
  })
})
