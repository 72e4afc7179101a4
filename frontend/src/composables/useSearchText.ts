import { onBeforeUnmount, ref, watch } from 'vue'

/**
 * A list's search box: `typed` follows the input, `settled` takes its trimmed value once typing
 * pauses, so the list asks the server once per pause rather than once per key.
 */
export function useSearchText(initial = '', delay = 250) {
  const typed = ref(initial)
  const settled = ref(initial.trim())
  let timer: ReturnType<typeof setTimeout> | undefined
  watch(typed, (value) => {
    clearTimeout(timer)
    timer = setTimeout(() => (settled.value = value.trim()), delay)
  })
  onBeforeUnmount(() => clearTimeout(timer))
  /** Both at once, without waiting: a value from the address or a "clear" button. */
  function set(value: string) {
    clearTimeout(timer)
    typed.value = value
    settled.value = value.trim()
  }
  return { typed, settled, set }
}
