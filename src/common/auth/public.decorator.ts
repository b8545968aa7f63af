import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'smsgw:public';

/** Exempts a route from API-key authentication (provider callbacks authenticate themselves). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
