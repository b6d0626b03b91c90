import { Module } from '@nestjs/common';
import { RunStartAllowance } from './run-start-allowance';

@Module({ providers: [RunStartAllowance], exports: [RunStartAllowance] })
export class AllowanceModule {}
