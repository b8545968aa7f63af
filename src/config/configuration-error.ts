/** The configuration could not be read: one line naming every invalid variable. */
export class ConfigurationError extends Error {}
