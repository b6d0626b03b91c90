import { Module } from '@nestjs/common';
import { PostgresTransactions } from '../database/postgres-transactions';
import { Transactions } from '../database/transactions';
import { AdmissionStore } from './admission.store';
import { PostgresAdmissionStore } from './postgres-admission.store';
import { RunAdmission } from './run-admission.service';

@Module({
  providers: [
    RunAdmission,
    { provide: AdmissionStore, useClass: PostgresAdmissionStore },
    { provide: Transactions, useClass: PostgresTransactions },
  ],
  exports: [RunAdmission, Transactions],
})
export class AdmissionModule {}
