export { run, main, commands } from './main.js';
export type { Io } from './command.js';
