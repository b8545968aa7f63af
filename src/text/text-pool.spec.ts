import { join } from 'node:path';
import { AppConfig } from '../config/configuration';
import { validateEnvironment } from '../config/env.validation';
import { TextPool } from './text-pool';
import type { RenderInput, RenderItem } from './text.worker';

/*
 * The pool's real threads: templates render and conditions are tested there, each recipient
 * within its limit, and a task that nothing inside its thread stops is ended by its deadline.
 */

function configWith(env: Record<string, string>): AppConfig {
  return new AppConfig(validateEnvironment({ LOG_LEVEL: 'silent', ...env }));
}

function item(data: unknown, overrides: Partial<RenderInput & RenderItem> = {}): RenderItem {
  const input: RenderInput = {
    data: typeof data === 'string' ? data : JSON.stringify(data),
    metas: { number: '+33612345678' },
    gsm: overrides.gsm ?? false,
  };
  return {
    source: overrides.source ?? 0,
    input: JSON.stringify(input),
    withMedias: overrides.withMedias ?? false,
  };
}

/** A pool whose threads run the spinning stand-in. */
class SpinningPool extends TextPool {
  protected override readonly threadFile = join(
    __dirname,
    '..',
    '..',
    'test',
    'fixtures',
    'text-threads',
    'spinning.worker.ts',
  );
}

/** A pool whose threads cannot load their code. */
class BrokenPool extends TextPool {
  protected override readonly threadFile = join(__dirname, 'no-such.worker.js');
  protected override readonly startTimeoutMs = 500;
}

describe('TextPool', () => {
  describe('with its own threads', () => {
    const pool = new TextPool(
      configWith({ TEMPLATE_TIMEOUT_MS: '20', CONDITION_TIMEOUT_MS: '20' }),
    );
    afterAll(() => pool.onApplicationShutdown());

    it('renders each recipient of a page, in order, with its reason when it has no text', async () => {
      const outcomes = await pool.render(
        ['Hi {{ contact.name }}', '{{ contact.name }}', 'Hi {{ contact.name }'],
        [
          item({ name: 'Ada' }),
          item({ name: 'Œdipe “roi”' }, { source: 0, gsm: true }),
          item({ name: '' }, { source: 1 }),
          item({ name: '' }, { source: 1, withMedias: true }),
          item({ name: 'x'.repeat(1001) }, { source: 1 }),
          item({ name: 'œ'.repeat(600) }, { source: 1, gsm: true }),
          item('not json'),
          item({ name: 'Ada' }, { source: 2 }),
        ],
      );

      expect(outcomes).toEqual([
        { text: 'Hi Ada' },
        { text: 'Hi OEdipe "roi"' },
        { reason: 'The rendered text is empty.' },
        { text: '' },
        { reason: 'The rendered text is longer than 1000 characters.' },
        {
          reason:
            'The rendered text is longer than 1000 characters once transliterated to the GSM alphabet.',
        },
        { text: 'Hi ' },
        { reason: expect.stringMatching(/^The template does not compile: .+\.$/) },
      ]);
    });

    it('stops each render at TEMPLATE_TIMEOUT_MS, saying so, and renders the others', async () => {
      const slow = { x: `${'a'.repeat(40)}!` };
      const quick = { x: 'aaa' };

      const outcomes = await pool.render(
        ["{% if contact.x matches '/^(a+)+$/' %}match{% else %}no{% endif %}"],
        [item(slow), item(quick), item(slow), item({ x: 'b' })],
      );

      expect(outcomes).toEqual([
        { reason: 'The template takes longer than 20 ms to render.' },
        { text: 'match' },
        { reason: 'The template takes longer than 20 ms to render.' },
        { text: 'no' },
      ]);
    });

    it('tests contacts against conditions, leaving out those whose test runs past CONDITION_TIMEOUT_MS, and reports conditions that cannot be used', async () => {
      const contact = (x: string) => ({ data: JSON.stringify({ x }), metas: { id: 1 } });

      const result = await pool.match(
        ["contact.x matches '/^(a+)+$/'", 'contact.x == "b"', 'contact.x ==='],
        [contact(`${'a'.repeat(40)}!`), contact('aaa'), contact('b')],
        'UTC',
      );

      expect(result).toEqual({
        errors: [null, null, expect.stringMatching(/^The condition does not parse: .+\.$/)],
        matched: [[], [0], [1]],
      });
    });
  });

  describe('with several threads', () => {
    const pool = new TextPool(configWith({ TEXT_THREADS: '2' }));
    afterAll(() => pool.onApplicationShutdown());

    it('shares a page between them and gives the outcomes in order', async () => {
      const names = Array.from({ length: 25 }, (_, index) => `Contact ${index}`);

      const outcomes = await pool.render(
        ['Hi {{ contact.name }}'],
        names.map((name) => item({ name })),
      );

      expect(outcomes).toEqual(names.map((name) => ({ text: `Hi ${name}` })));
    });
  });

  describe('when its threads cannot start', () => {
    const pool = new BrokenPool(configWith({}));
    afterAll(() => pool.onApplicationShutdown());

    it('gives the task up rather than leave it waiting', async () => {
      await expect(pool.render(['-'], [item('a')])).rejects.toThrow(
        'No text thread started the task within 500 ms: the log says why.',
      );
    });
  });

  describe('when nothing inside a thread stops a task', () => {
    const pool = new SpinningPool(configWith({ TEMPLATE_TIMEOUT_MS: '1' }));
    afterAll(() => pool.onApplicationShutdown());

    it('stops the task at its deadline, then fails only the recipients that cannot finish', async () => {
      const outcomes = await pool.render(['-'], [item('a'), item('spin'), item('b')]);

      expect(outcomes).toEqual([
        { text: 'rendered a' },
        { reason: 'The template takes longer than 1 ms to render.' },
        { text: 'rendered b' },
      ]);
      // The thread that spun was terminated; a new one takes the next task.
      expect(await pool.render(['-'], [item('c')])).toEqual([{ text: 'rendered c' }]);
    });

    it('stops a task at once when its caller gives up, and when the pool shuts down', async () => {
      const caller = new AbortController();
      const started = Date.now();
      const abandoned = pool.render(['-'], [item('spin')], caller.signal);
      setTimeout(() => caller.abort(), 100);
      await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
      // Well before the task's own deadline (2 s).
      expect(Date.now() - started).toBeLessThan(1500);

      const stopped = expect(pool.render(['-'], [item('spin')])).rejects.toThrow(
        'Terminating worker thread',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await pool.onApplicationShutdown();
      await stopped;
    });
  });
});
