import { ref, shallowRef, type Ref, type ShallowRef } from 'vue'
import { errorMessage } from '@/http'

export interface AsyncState<T> {
  data: ShallowRef<T | undefined>
  loading: Ref<boolean>
  error: Ref<string>
  /** Loads again; a load that a newer one overtook is ignored. */
  reload: () => Promise<void>
}

/**
 * One piece of server data with its loading and error state, for the empty / loading / error
 * states every page shows. `immediate: false` waits for the first reload().
 */
export function useAsync<T>(load: () => Promise<T>, options: { immediate?: boolean } = {}): AsyncState<T> {
  const data = shallowRef<T>()
  const loading = ref(false)
  const error = ref('')
  let latest = 0

  async function reload(): Promise<void> {
    const ticket = ++latest
    loading.value = true
    error.value = ''
    try {
      const value = await load()
      if (ticket === latest) data.value = value
    } catch (failure) {
      if (ticket === latest) error.value = errorMessage(failure)
    } finally {
      if (ticket === latest) loading.value = false
    }
  }

  if (options.immediate !== false) void reload()
  return { data, loading, error, reload }
}
