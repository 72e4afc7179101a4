import { nextTick, ref, type Ref } from 'vue'
import { type FormApi, showFieldError } from '@/lib/checkForm'

/**
 * The check form's errors: the name's, each form-create field's (its own rules first, then the
 * server's 400 under the field it names) and the general ones above the form. A field's error
 * clears when the user changes it; a new save clears them all.
 */
export function useCheckFormErrors(fApi: Ref<FormApi | null>) {
  const nameError = ref('')
  const serverErrors = ref<string[]>([])
  const fieldsWithErrors = new Set<string>()

  function setFieldError(field: string, message: string) {
    if (fApi.value) showFieldError(fApi.value, field, message)
    if (message) fieldsWithErrors.add(field)
    else fieldsWithErrors.delete(field)
  }
  function clearFieldError(field: string) {
    if (fieldsWithErrors.has(field)) setFieldError(field, '')
  }
  function clearAll() {
    serverErrors.value = []
    nameError.value = ''
    for (const field of [...fieldsWithErrors]) setFieldError(field, '')
  }
  async function scrollToFirst() {
    await nextTick()
    document.querySelector('.is-error, .server-errors')?.scrollIntoView({ block: 'center', behavior: 'smooth' })
  }
  return { nameError, serverErrors, setFieldError, clearFieldError, clearAll, scrollToFirst }
}
