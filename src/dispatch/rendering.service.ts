import { Injectable } from '@nestjs/common';
import { nowUtc } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { TextPool } from '../text/text-pool';
import type { RenderItem } from '../text/text.worker';
import { RenderedRow, RenderingRepository } from './rendering.repository';

/**
 * The expansion always writes `render_input` for the rows it queues unrendered; a row without
 * one (written by other means) renders with no data rather than stay in the queue for ever.
 */
const NO_INPUT = JSON.stringify({ data: null, metas: {}, gsm: false });

/**
 * Renders the templated texts the expansion queued `unrendered`, a page at a time, in the text
 * pool's threads and outside of any transaction: each row then becomes `queued` with its text,
 * or `rejected` with the reason it has none (a template error, a render that took too long, an
 * empty or too long text). A worker that dies mid-render has stored nothing: the rows are
 * rendered again, by it once restarted or by another worker, and nothing was sent.
 */
@Injectable()
export class RenderingService {
  constructor(
    private readonly repository: RenderingRepository,
    private readonly pool: TextPool,
    private readonly config: AppConfig,
  ) {}

  /** Renders one page; the number of rows rendered (0: none waits, or `signal` stopped it). */
  async renderNext(workerId: string, signal?: AbortSignal): Promise<number> {
    const rows = await this.repository.leaseUnrendered(workerId, this.config.dispatch.batchSize);
    if (rows.length === 0) {
      return 0;
    }
    const sources = [...new Set(rows.map((row) => row.text))];
    const items = rows.map((row): RenderItem => ({
      source: sources.indexOf(row.text),
      input: row.render_input ?? NO_INPUT,
      withMedias: row.media_ids !== null,
    }));
    let outcomes;
    try {
      outcomes = await this.pool.render(sources, items, signal);
    } catch (error) {
      if (signal?.aborted) {
        return 0;
      }
      throw error;
    }
    await this.repository.storeRendered(
      rows.map((row, index): RenderedRow => ({ id: row.id, ...outcomes[index] })),
      nowUtc(),
    );
    return rows.length;
  }
}
