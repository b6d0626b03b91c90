import { Module } from '@nestjs/common';
import { OwnedAgents } from './owned-agents';

@Module({ providers: [OwnedAgents], exports: [OwnedAgents] })
export class AgentsModule {}
