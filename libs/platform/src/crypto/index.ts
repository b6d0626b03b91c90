export * from './secret-box';
export * from './installation-chain';
