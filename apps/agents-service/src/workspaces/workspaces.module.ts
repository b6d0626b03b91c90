import { Module } from '@nestjs/common';
import { WorkspacesHandlers } from './workspaces.handlers';
import { WorkspacesService } from './workspaces.service';

@Module({
  controllers: [WorkspacesHandlers],
  providers: [WorkspacesService],
})
export class WorkspacesModule {}
