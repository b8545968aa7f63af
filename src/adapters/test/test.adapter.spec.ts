import { outgoingSms } from '../../../test/support/adapters.factories';
import { Adapter } from '../adapter';
import { TestAdapter } from './test.adapter';

describe('TestAdapter', () => {
  // As the dispatch holds it, which gives send the message too.
  const adapter: Adapter = new TestAdapter();

  describe('refusal', () => {
    it.each(['phone', 'recipient'] as const)(
      'refuses every message for good, as the %s refusing, when refusal names it',
      async (cause) => {
        expect(await adapter.send({ refusal: cause }, outgoingSms())).toEqual({
          outcome: 'permanent',
          reason: `The test adapter refused the message for a reason of the ${cause}, as its refusal setting says.`,
          cause,
        });
      },
    );

    it('refuses before the delivery setting is read', async () => {
      expect(
        await adapter.send({ refusal: 'phone', delivery: 'delivered' }, outgoingSms()),
      ).toMatchObject({ outcome: 'permanent', cause: 'phone' });
    });

    it.each<Record<string, string>>([{}, { refusal: '' }])(
      'sends normally without a refusal (%p)',
      async (data) => {
        expect(await adapter.send({ ...data, delivery: 'delivered' }, outgoingSms())).toMatchObject(
          {
            outcome: 'sent',
            status: 'delivered',
          },
        );
      },
    );

    it.each(['phone', 'recipient', ''])('takes refusal %p', async (refusal) => {
      expect(await adapter.test({ refusal })).toBeNull();
    });

    it.each(['Phone', 'carrier', 'both'])(
      'refuses refusal %p, naming the values',
      async (refusal) => {
        expect(await adapter.test({ refusal })).toBe('refusal must be one of phone, recipient.');
      },
    );

    it('lists the field in its descriptor, as get_adapters shows it', () => {
      expect(adapter.descriptor.fields).toContainEqual({
        name: 'refusal',
        description:
          'Refuses every message for good, as the phone (phone) or the recipient (recipient) refusing; empty: sends them.',
        required: false,
      });
    });
  });
});
