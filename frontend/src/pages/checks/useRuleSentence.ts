import { ref, watch, type Ref } from 'vue'
import { previewFormula } from '@/api/checks'

/**
 * The rule in words ("Pass when actual − expected ≤ 0"), live as the check form's verdict fields
 * change: the server words it (GET /formula/), asked once typing pauses, an older question
 * aborted by a newer one; '' while the formula, operator or threshold is missing.
 */
export function useRuleSentence(values: Ref<Record<string, unknown>>) {
  const sentence = ref('')
  let wording: AbortController | undefined
  let wordingTimer: ReturnType<typeof setTimeout> | undefined
  watch(
    () => [values.value.check_type, values.value.operator, values.value.threshold] as const,
    ([checkType, operator, threshold], before) => {
      if (before && checkType === before[0] && operator === before[1] && threshold === before[2]) return
      clearTimeout(wordingTimer)
      wording?.abort()
      const number = threshold === '' || threshold === null || threshold === undefined ? NaN : Number(threshold)
      if (!checkType || !operator || !Number.isFinite(number)) {
        sentence.value = ''
        return
      }
      wordingTimer = setTimeout(async () => {
        wording = new AbortController()
        try {
          const rule = { check_type: String(checkType), operator: String(operator), threshold: number }
          sentence.value = (await previewFormula(rule, wording.signal)).formula
        } catch (error) {
          if (!(error instanceof DOMException && error.name === 'AbortError')) sentence.value = ''
        }
      }, 150)
    },
    { immediate: true },
  )
  return sentence
}
