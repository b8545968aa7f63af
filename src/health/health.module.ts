import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { WorkerHeartbeatModule } from '../common/worker-heartbeat';
import { HealthController } from './health.controller';
import { MigrationsHealthIndicator } from './migrations.health';
import { WorkerHealthIndicator } from './worker.health';

/** `GET /health` (liveness) and `GET /health/ready` (readiness), with Terminus. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' }), WorkerHeartbeatModule],
  controllers: [HealthController],
  providers: [MigrationsHealthIndicator, WorkerHealthIndicator],
})
export class HealthModule {}
