import { describe, expect, it } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import { defineComponent, h, ref } from 'vue'
import ElementPlus from 'element-plus'
import formCreate from '@form-create/element-ui'
import type { FormRule } from '@/api/types'
import { type FormApi, showFieldError } from '@/lib/checkForm'

// Two fields as /rule-templates/null_check/form/ serves them. (Where the messages appear on
// screen is checked in Chromium by tests/browser; happy-dom does not redraw Element Plus's
// error slot.)
const RULES: FormRule[] = [
  { type: 'input', field: 'src_filter', title: 'Source filter', props: { type: 'textarea' }, validate: [] },
  {
    type: 'inputNumber',
    field: 'threshold',
    title: 'Threshold',
    value: 0,
    validate: [
      { required: true, message: 'Enter threshold: it is required.', trigger: 'change' },
      { type: 'number', message: 'Threshold must be a number.', trigger: 'change' },
    ],
  },
]

// async-validator prints every failed rule to the console unless told not to.
;(globalThis as Record<string, unknown>).ASYNC_VALIDATOR_NO_WARNING = 1

type FullApi = FormApi & { getRule(field: string): FormRule & { wrap: Record<string, unknown> } }

async function mountForm() {
  const api = ref<FullApi | null>(null)
  const rule = JSON.parse(JSON.stringify(RULES))
  const option = { submitBtn: false, resetBtn: false }
  const FormCreate = formCreate.$form()
  const Host = defineComponent({
    setup: () => () => h(FormCreate, { rule, option, 'onUpdate:api': (value: FullApi) => (api.value = value) }),
  })
  const wrapper = mount(Host, { global: { plugins: [ElementPlus, formCreate] }, attachTo: document.body })
  await flushPromises()
  const threshold = wrapper.findAll('.el-form-item').find((item) => item.text().includes('Threshold'))!.find('input')
  return { wrapper, api: api.value!, threshold }
}

function messages(error: unknown): string[] {
  return Object.values(error as Record<string, Array<{ message: string }>>).flatMap((list) => list.map((e) => e.message))
}

describe('the served form in form-create', () => {
  it('rejects an emptied threshold with the message the server wrote', async () => {
    const { wrapper, api, threshold } = await mountForm()
    await threshold.setValue('')
    await threshold.trigger('change')
    await flushPromises()
    expect(api.getValue('threshold')).toBeNull()
    const error = await api.validate().then(
      () => null,
      (e: unknown) => e,
    )
    expect(messages(error)).toEqual(['Enter threshold: it is required.'])
    wrapper.unmount()
  })

  it('accepts the served defaults', async () => {
    const { wrapper, api } = await mountForm()
    await expect(api.validate()).resolves.toBeTruthy()
    expect(api.formData()).toMatchObject({ threshold: 0 })
    wrapper.unmount()
  })

  it('hands a 400’s message to the field’s form item, and clears it', async () => {
    const { wrapper, api } = await mountForm()
    showFieldError(api, 'src_filter', 'The filter cannot contain a subquery.')
    expect(api.getRule('src_filter').wrap.error).toBe('The filter cannot contain a subquery.')
    expect(api.getRule('threshold').wrap?.error).toBeUndefined()
    showFieldError(api, 'src_filter', '')
    expect(api.getRule('src_filter').wrap.error).toBe('')
    wrapper.unmount()
  })
})
