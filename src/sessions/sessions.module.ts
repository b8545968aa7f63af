import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionResolver } from '../common/auth/session';
import { UsersModule } from '../users/users.module';
import { LoginAttempt } from './entities/login-attempt.entity';
import { Session } from './entities/session.entity';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

@Module({
  imports: [TypeOrmModule.forFeature([Session, LoginAttempt]), UsersModule],
  controllers: [SessionsController],
  providers: [
    SessionsRepository,
    SessionsService,
    { provide: SessionResolver, useExisting: SessionsService },
  ],
  exports: [SessionResolver],
})
export class SessionsModule {}
