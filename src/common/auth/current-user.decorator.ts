import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { ApiRequest, AuthenticatedUser } from '../http/request';

/** The authenticated caller; the guard guarantees it on every non-public route. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser => {
    const user = context.switchToHttp().getRequest<ApiRequest>().user;
    if (!user) {
      throw new Error('CurrentUser used on a route without authentication');
    }
    return user;
  },
);
