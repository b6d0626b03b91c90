export * from './problem-detail.dto';
export * from './common.dto';
export * from './identity.dto';
export * from './api-keys.dto';
export * from './agents.dto';
export * from './workspaces.dto';
export * from './instructions.dto';
export * from './runs.dto';
