/** The driver of a manual clock lives with the CLI, which runs `jobstorm fuzz` on it too. */
export { ClockDriver, type ClockDriverOptions } from '../../src/cli/run/clock-driver.js';
