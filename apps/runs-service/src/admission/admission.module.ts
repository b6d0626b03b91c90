import { Module } from '@nestjs/common';
import { AdmissionStore } from './admission.store';
import { PostgresAdmissionStore } from './postgres-admission.store';
import { RunAdmission } from './run-admission.service';
import { PostgresTransactions, Transactions } from '@aas/platform';

@Module({
  providers: [
    RunAdmission,
    { provide: AdmissionStore, useClass: PostgresAdmissionStore },
    { provide: Transactions, useClass: PostgresTransactions },
  ],
  exports: [RunAdmission, Transactions],
})
export class AdmissionModule {}
