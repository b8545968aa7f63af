/**
 * What the encryption of a secret field of a phone's `adapter_data` is bound to (with the
 * field's name): its owner and the phone itself, so that a value copied to another phone, or
 * another user's, does not decrypt. Here rather than beside the phone entity because the
 * adapters' cipher and the database's migrations and key check both need it, and neither may
 * depend on the phones feature.
 */
export function adapterDataScope(phone: { id: number; id_user: number }): string {
  return `phone/${Number(phone.id_user)}/${Number(phone.id)}/adapter_data`;
}
