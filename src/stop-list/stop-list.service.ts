import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Paged, WithStatus } from '../common/http/envelope';
import { buildLink } from '../common/http/links';
import { AuthenticatedUser } from '../common/http/request';
import { cursorQuery, pageLinks } from '../common/paging/page-links';
import { utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { AddStopInput, ListStopsInput, StopIdInput } from './stop-list.params';
import { StopListRepository, StopRow } from './stop-list.repository';

/** GET, POST /api/stop/ and DELETE /api/stop/{id}/ (docs/api.md#get_stop and after). */
@Injectable()
export class StopListService {
  constructor(
    private readonly stops: StopListRepository,
    private readonly config: AppConfig,
  ) {}

  async list(
    user: AuthenticatedUser,
    { cursor }: ListStopsInput,
    linkBase: string,
  ): Promise<Paged<StopRow>> {
    const rows = await this.stops.listPage(user.id, cursor);
    const { next, prev } = pageLinks(
      cursor,
      rows.map((row) => row.id),
      (to) => buildLink(linkBase, '/api/stop/', { ...cursorQuery(to), api_key: user.apiKey }),
    );
    const items = rows.map((row) => ({
      ...row,
      created_at: utcToZone(row.created_at, this.config.timeZone) ?? row.created_at,
    }));
    return new Paged(items, next, prev);
  }

  /** Rules 1 and 2 were checked by the parse. */
  async add(user: AuthenticatedUser, { number }: AddStopInput): Promise<WithStatus<number>> {
    // Rule 3.
    const { id, added } = await this.stops.add(user.id, number);
    return new WithStatus(id, added ? 201 : 200);
  }

  async delete(user: AuthenticatedUser, { id }: StopIdInput): Promise<true> {
    if (!(await this.stops.deleteOwned(user.id, id))) {
      throw ApiError.notFound(
        ErrorCode.CANNOT_DELETE,
        `id : ${id} is not the id of a number of your STOP list.`,
      );
    }
    return true;
  }
}
