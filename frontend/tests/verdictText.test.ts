import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import VerdictText from '@/components/VerdictText.vue'

describe('the verdict as the server words it', () => {
  it('lays out the rule, the working and the outcome of the server’s sentence, word for word', () => {
    const verdict = 'Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail'
    const wrapper = mount(VerdictText, {
      props: { result: { verdict, formula: 'Pass when actual − expected ≤ 0', status: 'fail', message: '' } },
    })
    expect(wrapper.text()).toBe(verdict)
    expect(wrapper.find('.rule').text()).toBe('Pass when actual − expected ≤ 0')
    expect(wrapper.find('.working').text()).toBe('2 − 0 = 2 > 0')
    expect(wrapper.find('.outcome.fail').text()).toBe('fail')
  })

  it('shows the rule and why for a result that could not be evaluated', () => {
    const wrapper = mount(VerdictText, {
      props: {
        result: { verdict: '', formula: 'Pass when actual − expected ≤ 0', status: 'error', message: 'Table gone.' },
      },
    })
    expect(wrapper.text()).toBe('Pass when actual − expected ≤ 0: Table gone.')
    expect(wrapper.find('.outcome').exists()).toBe(false)
  })

  it('shows a sentence it cannot split as it is', () => {
    const wrapper = mount(VerdictText, {
      props: { result: { verdict: 'Something the server said', formula: '', status: 'unknown', message: '' } },
    })
    expect(wrapper.text()).toBe('Something the server said')
  })
})
