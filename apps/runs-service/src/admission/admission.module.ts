import { Module } from '@nestjs/common';
import { RunAdmission } from './run-admission.service';

@Module({
  providers: [RunAdmission],
  exports: [RunAdmission],
})
export class AdmissionModule {}
