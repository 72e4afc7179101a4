import { ref, watch, type Ref } from 'vue'
import { previewFormula } from '@/api/checks'

/**
 * The rule in words ("Pass when actual − expected ≤ 0"), live as the check form's verdict fields
 * change: the server words it (GET /formula/), asked once typing pauses, an older question
 * aborted by a newer one; '' while neither the formula, operator and threshold nor the expected
 * value's kind is there. `byRange`: a dynamic range or anomaly detection decides, so the formula
 * is not used.
 */
export function useRuleSentence(values: Ref<Record<string, unknown>>) {
  const sentence = ref('')
  const byRange = ref(false)
  let wording: AbortController | undefined
  let wordingTimer: ReturnType<typeof setTimeout> | undefined
  watch(
    () => [values.value.check_type, values.value.operator, values.value.threshold, values.value.comparison_type] as const,
    ([checkType, operator, threshold, kind], before) => {
      if (before && checkType === before[0] && operator === before[1] && threshold === before[2] && kind === before[3]) return
      clearTimeout(wordingTimer)
      wording?.abort()
      const number = threshold === '' || threshold === null || threshold === undefined ? NaN : Number(threshold)
      const formula = checkType && operator && Number.isFinite(number)
      if (!formula && !kind) {
        sentence.value = ''
        return
      }
      wordingTimer = setTimeout(async () => {
        wording = new AbortController()
        try {
          const rule = {
            ...(formula ? { check_type: String(checkType), operator: String(operator), threshold: number } : {}),
            ...(kind ? { comparison_type: String(kind) } : {}),
          }
          const worded = await previewFormula(rule, wording.signal)
          sentence.value = worded.formula
          byRange.value = worded.by_range
        } catch (error) {
          if (!(error instanceof DOMException && error.name === 'AbortError')) sentence.value = ''
        }
      }, 150)
    },
    { immediate: true },
  )
  return { sentence, byRange }
}
