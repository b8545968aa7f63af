import type { QueryClient } from '@tanstack/react-query';
import {
  PHONES_KEY as PHONE_CHOICES_KEY,
  PHONE_GROUPS_KEY as GROUP_CHOICES_KEY,
} from '../../api/entries';
import { PHONE_GROUPS_KEY } from '../../api/phone-groups';
import { PHONES_KEY } from '../../api/phones';

/**
 * After a phone or phone group changes: every list that shows them, the Send page's and the
 * dashboard's included, reads them again.
 */
export async function phonesChanged(client: QueryClient): Promise<void> {
  await Promise.all(
    [PHONES_KEY, PHONE_GROUPS_KEY, PHONE_CHOICES_KEY, GROUP_CHOICES_KEY].map((queryKey) =>
      client.invalidateQueries({ queryKey }),
    ),
  );
}
